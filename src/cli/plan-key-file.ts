import { resolve } from 'node:path';
import { exposureWarning, readCredentialFile } from '../credential-file.js';
import { type PlanKey, planKeyFrom } from '../plan/secret-digest.js';

const FLAG = '--plan-key-file';

/**
 * The plan key of `--plan-key-file` (`EDGESYNC_PLAN_KEY_FILE`), or undefined
 * without one. The file's bytes are the key, less one trailing line break
 * (`echo … > plan.key` adds one); at least 32 bytes. A file others can read
 * is used, with a warning on stderr.
 */
export async function readPlanKey(
  file: string | undefined,
  cwd: string,
  warn: (line: string) => void,
): Promise<PlanKey | undefined> {
  if (file === undefined) return undefined;
  const read = await readCredentialFile(resolve(cwd, file), FLAG);
  if (read.exposure !== undefined) warn(`warning: ${exposureWarning(file, FLAG, read.exposure)}`);
  return planKeyFrom(withoutLineBreak(read.bytes), `${FLAG}: ${file}`);
}

function withoutLineBreak(bytes: Buffer): Buffer {
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end -= 1;
  if (bytes[end - 1] === 0x0d) end -= 1;
  return bytes.subarray(0, end);
}
