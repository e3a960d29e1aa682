import fs from 'node:fs';
import path from 'node:path';
import { deployFiles } from './deploy-files';

/**
 * `npm run deploy:gen`: rewrites the parts of the deployment files that follow SERVICE_MANIFEST
 * (deploy-files.ts), after a service is added to or removed from the manifest or its ops port changes.
 */
const root = path.resolve(__dirname, '..', '..', '..');
for (const [file, content] of deployFiles(root)) {
  const at = path.join(root, file);
  if (fs.existsSync(at) && fs.readFileSync(at, 'utf8') === content) continue;
  fs.writeFileSync(at, content);
  process.stdout.write(`deploy:gen: wrote ${file}\n`);
}
