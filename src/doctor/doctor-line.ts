/**
 * How one assumption fared: `holds`, `differs` (edgesync would misbehave,
 * the doctor fails), or `unknown` (the service does not say, and finding out
 * would cost what the doctor does not spend: the budget left).
 */
export const VERDICTS = ['holds', 'differs', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One line of the doctor's report: an assumption edgesync makes, what the service answered, and whether they match. */
export interface DoctorLine {
  /** Stable, for machines: `connection.url`, `list.ip_policy_rules`, `variant.empty-list`. */
  readonly check: string;
  readonly assumption: string;
  /** What the service answered, in words; never a secret. */
  readonly answered: string;
  readonly verdict: Verdict;
  /** For an undocumented behaviour: which of its variants the service has (`not-found`, `clears`). */
  readonly variant?: string;
}

export function line(
  check: string,
  assumption: string,
  answered: string,
  verdict: Verdict,
  variant?: string,
): DoctorLine {
  return variant === undefined
    ? { check, assumption, answered, verdict }
    : { check, assumption, answered, verdict, variant };
}
