import type { ManifestError } from '../manifest/manifest-error.js';
import { VERSION } from '../version.js';

/**
 * SARIF 2.1.0 for manifest problems: what GitHub code scanning (and other
 * CI annotators) read to put each error on its line in a pull request.
 * `pathFromRoot` names a file (as errors name it) from the repository root
 * with `/` separators; URIs are that path, relative, with `uriBaseId`
 * `%SRCROOT%`, never absolute, so code scanning can place them in any checkout.
 */
export function manifestErrorsToSarif(
  errors: readonly ManifestError[],
  pathFromRoot: (file: string) => string,
): Record<string, unknown> {
  const codes = [...new Set(errors.map((error) => error.code))].sort();
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'edgesync',
            version: VERSION,
            informationUri: 'https://github.com/edgesync/edgesync/blob/main/docs/manifest.md',
            rules: codes.map((code) => ({
              id: code,
              name: code,
              shortDescription: { text: `edgesync manifest check: ${code.replaceAll('_', ' ')}` },
              defaultConfiguration: { level: 'error' },
            })),
          },
        },
        results: errors.map((error) => ({
          ruleId: error.code,
          ruleIndex: codes.indexOf(error.code),
          level: 'error',
          message: { text: error.path === '' ? error.detail : `${error.path}: ${error.detail}` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: toUri(pathFromRoot(error.file)), uriBaseId: '%SRCROOT%' },
                // A problem with the file as a whole has no region: SARIF places it on the file.
                ...(error.line === undefined
                  ? {}
                  : { region: { startLine: error.line, startColumn: error.column } }),
              },
            },
          ],
        })),
      },
    ],
  };
}

/** A relative URI reference: each segment percent-encoded; a path still outside the root keeps its `..`. */
function toUri(path: string): string {
  return path
    .replace(/^\.\//, '')
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}
