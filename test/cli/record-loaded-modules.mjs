// An ESM loader hook for test/cli/lazy-commands.test.ts: appends the URL of
// every module the process loads to the file named in its `data`.
import { appendFileSync } from 'node:fs';

let logFile;

export function initialize(data) {
  logFile = data.logFile;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  appendFileSync(logFile, `${url}\n`);
  return loaded;
}
