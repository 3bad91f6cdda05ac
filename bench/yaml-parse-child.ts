import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * The floor of the `cli-plan` section, alone in a fresh process as the
 * command is: `yaml.parse` of every `.yaml` file of a directory, timed around
 * the parses only (the files read first). Prints `{"parseMs":N,"files":N}`.
 * argv: <manifest dir>
 */
async function main(): Promise<void> {
  const [dir] = process.argv.slice(2);
  if (dir === undefined) throw new Error('usage: yaml-parse-child <manifest dir>');
  const names = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')));
  const startedAt = performance.now();
  for (const text of texts) parse(text);
  const parseMs = performance.now() - startedAt;
  process.stdout.write(`${JSON.stringify({ parseMs, files: texts.length })}\n`);
}

await main();
