/** Ends every jest run with one plain line: "N passed, N failed" (", N skipped" when any). */
class SummaryReporter {
  onRunComplete(_contexts, r) {
    const skipped = r.numPendingTests + r.numTodoTests;
    // Suites that failed to run (e.g. a beforeAll that threw) count as failures too.
    const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
    process.stderr.write(`\n${r.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
module.exports = SummaryReporter;
