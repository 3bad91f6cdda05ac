/** What `/status` says of the commit statuses: where they go and how the posts fare; never the token. */
export interface CommitStatusesStatus {
  readonly provider: string;
  readonly repo: string;
  readonly context: string;
  readonly posted: number;
  /** Posts that failed and wait for a retry, refusals included. */
  readonly failed: number;
  readonly queued: number;
  readonly lastPosted: {
    readonly commit: string;
    readonly state: string;
    readonly description: string;
    /** RFC 3339. */
    readonly at: string;
  } | null;
  readonly lastFailure: { readonly commit: string; readonly message: string; readonly at: string } | null;
}
