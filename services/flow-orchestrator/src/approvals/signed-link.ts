/** What a signed resume, cancel or approval-page link names; `signature` covers the rest. */
export interface SignedLink {
  readonly workspace: string;
  readonly jobId: string;
  readonly resumeId: number;
  readonly approver: string | undefined;
  readonly signature: string;
}
