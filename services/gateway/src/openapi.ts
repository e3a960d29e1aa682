import { stringify } from 'yaml';
import { buildOpenApi } from '@acct/contracts';

/** The document as served: schemas shared by several routes are written out, never as YAML aliases. */
export function renderOpenApiYaml(): string {
  return stringify(buildOpenApi(), { aliasDuplicateObjects: false, lineWidth: 0 });
}
