import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** The text of a PDF, extracted by pdf-parse (pdf.js) in a child Node process. */
export async function pdfTextOf(pdf: Buffer): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-text-'));
  const file = path.join(dir, 'doc.pdf');
  try {
    fs.writeFileSync(file, pdf);
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'pdf-text-cli.cjs'), file], {
      maxBuffer: 64 << 20,
      cwd: path.join(__dirname, '..', '..'),
    });
    return stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
