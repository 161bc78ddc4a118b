import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signs what a resume or cancel link may do: answer this job of this workspace, as this resume
 * id, for this approver. Anyone holding the link may use it, and only it: changing the
 * workspace, the job, the resume id or the approver breaks the signature.
 */
export class ResumeSigner {
  private readonly key: Buffer;

  /** Without a key, one is made for this process: links then die with it. */
  constructor(key: string | undefined) {
    this.key = key === undefined ? randomBytes(32) : Buffer.from(key, 'utf8');
  }

  sign(workspace: string, jobId: string, resumeId: number, approver: string | undefined): string {
    // Length-prefixed fields: "a" + "bc" and "ab" + "c" must not sign alike.
    const mac = createHmac('sha256', this.key);
    for (const field of [workspace, jobId, String(resumeId), approver ?? '']) {
      mac.update(`${Buffer.byteLength(field)}:`).update(field);
    }
    return mac.digest('hex');
  }

  verify(
    workspace: string,
    jobId: string,
    resumeId: number,
    approver: string | undefined,
    signature: string,
  ): boolean {
    if (!/^[0-9a-f]{64}$/.test(signature)) return false;
    return timingSafeEqual(
      Buffer.from(this.sign(workspace, jobId, resumeId, approver), 'hex'),
      Buffer.from(signature, 'hex'),
    );
  }
}
