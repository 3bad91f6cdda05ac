/** IDs of a resource that manifests name but that is no kind of edgesync's (an IP policy). */
export interface NamedIds {
  /** `ipp_` */
  readonly prefix: string;
  /** Singular, for people: "IP policy". */
  readonly title: string;
  /**
   * Optional: where one is read by ID (`GET {path}/{id}`), to check at plan
   * time that the account holds it. Without it (a route, read with its
   * edge) the plan does not check.
   */
  readonly path?: string;
}
