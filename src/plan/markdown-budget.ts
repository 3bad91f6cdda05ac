// Alone in its module so that the CLI's flag definitions read them without loading the renderer.

/**
 * GitHub refuses an issue or pull-request comment over 65,536 characters.
 * The default leaves room for a workflow's own heading and a link around
 * the plan, and for the UTF-16 count GitHub makes of the emoji.
 */
export const GITHUB_COMMENT_MAX_CHARS = 65_536;
export const DEFAULT_MARKDOWN_MAX_CHARS = 60_000;

/** The smallest budget that still holds the heading, the counts and a cut line. */
export const MIN_MARKDOWN_MAX_CHARS = 1_000;
