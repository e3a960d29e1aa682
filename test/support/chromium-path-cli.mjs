// Prints the path of the Chromium that `npm ci` brings: @sparticuz/chromium ships it compressed in
// its npm package and unpacks it (once) under the temp folder. ESM-only, so it runs in a child Node
// process (jest's module system cannot load it), as pdf-text-cli.cjs does for pdf-parse.
import chromium from '@sparticuz/chromium';

process.stdout.write(await chromium.executablePath());
