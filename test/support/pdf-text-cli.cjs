// Prints the text of the PDF at argv[2] (pdf-parse), for tests: pdf.js loads its worker by a dynamic
// import, which jest's module sandbox refuses, so the tests parse in a plain Node process.
const fs = require('node:fs');
const { PDFParse } = require('pdf-parse');

const parser = new PDFParse({ data: new Uint8Array(fs.readFileSync(process.argv[2])) });
parser
  .getText()
  .then((r) => process.stdout.write(r.text))
  .finally(() => parser.destroy())
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
