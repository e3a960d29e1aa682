import fs from 'node:fs';
import path from 'node:path';
import { HTTP_DIR, sdkFiles } from './sdk-files';

/**
 * `npm run sdk:gen`: rewrites the SDK's types and the `.http` collection (with its environments) from the OpenAPI document
 * (sdk-files.ts), after a contract changes. Stale `.http` files of tags that are gone are removed.
 */
const root = path.resolve(__dirname, '..', '..', '..');
try {
  const files = sdkFiles();
  fs.mkdirSync(path.join(root, HTTP_DIR), { recursive: true });
  for (const f of fs.readdirSync(path.join(root, HTTP_DIR))) {
    const rel = `${HTTP_DIR}/${f}`;
    if (f.endsWith('.http') && !files.has(rel)) {
      fs.rmSync(path.join(root, rel));
      process.stdout.write(`sdk:gen: removed ${rel}\n`);
    }
  }
  for (const [file, content] of files) {
    const at = path.join(root, file);
    if (fs.existsSync(at) && fs.readFileSync(at, 'utf8') === content) continue;
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.writeFileSync(at, content);
    process.stdout.write(`sdk:gen: wrote ${file}\n`);
  }
} catch (e) {
  process.stderr.write(`sdk:gen: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}
