/** A clear, one-line failure for the operator (printed without a stack trace by the callers). */
export class LocalServiceError extends Error {}
