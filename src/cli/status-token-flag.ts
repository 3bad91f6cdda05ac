/** The option every command that reads a daemon's status takes: the file of the token it sends. */
export const STATUS_TOKEN_OPTION = [
  '--status-token-file <file>',
  'the file holding the token the daemon was started with (watch --status-token-file), sent as "Authorization: Bearer"',
] as const;
