/** One instruction of a Dockerfile, continuation lines joined, in the stage it belongs to. */
export interface DockerInstruction {
  readonly keyword: string;
  /** The rest of the line, as written. */
  readonly args: string;
  /** 0 for the first FROM's stage; -1 before any FROM (global ARGs). */
  readonly stage: number;
}

/** A small parser for the subset the project's Dockerfile uses (no heredocs, no escape directive). */
export function parseDockerfile(text: string): DockerInstruction[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(`${pending}${line.trim()}`);
    pending = '';
  }
  const instructions: DockerInstruction[] = [];
  let stage = -1;
  for (const line of logical) {
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match?.[1] || match[2] === undefined) throw new Error(`not an instruction: ${line}`);
    const keyword = match[1].toUpperCase();
    if (keyword === 'FROM') stage += 1;
    instructions.push({ keyword, args: match[2], stage });
  }
  return instructions;
}

/** The JSON (exec) form of ENTRYPOINT, CMD or `HEALTHCHECK … CMD`; throws on the shell form. */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) {
    throw new Error(`not the exec form: ${args}`);
  }
  return parsed;
}
