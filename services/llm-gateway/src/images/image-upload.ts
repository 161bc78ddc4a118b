import { MeshError } from '@flowmesh/contracts';
import {
  createOutboundDispatcher,
  createOutboundFetch,
  findOutboundRefusal,
  OutboundPolicy,
  type AllowedCidr,
  type OutboundFetch,
} from '@flowmesh/outbound';
import type { Agent } from 'undici';

const UPLOAD_TIMEOUT_MS = 60_000;

/**
 * Puts a generated image where the caller's signed link says (its own object storage), through
 * the SSRF guard like every URL the gateway is given. The gateway holds no storage credentials:
 * the link is the whole permission, for one object, for minutes.
 */
export class ImageUpload {
  private readonly dispatcher: Agent;
  private readonly fetch: OutboundFetch;

  constructor(allowCidrs: readonly AllowedCidr[]) {
    const policy = new OutboundPolicy(allowCidrs);
    this.dispatcher = createOutboundDispatcher(policy, {
      connections: 4,
      headersTimeout: UPLOAD_TIMEOUT_MS,
      bodyTimeout: UPLOAD_TIMEOUT_MS,
    });
    this.fetch = createOutboundFetch({ policy, dispatcher: this.dispatcher, maxRedirects: 0 });
  }

  async put(url: string, bytes: Buffer, mediaType: string): Promise<void> {
    let response: Response;
    try {
      response = await this.fetch(url, {
        method: 'PUT',
        headers: { 'content-type': mediaType, 'content-length': String(bytes.byteLength) },
        body: bytes,
        signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
      });
    } catch (error) {
      const refusal = findOutboundRefusal(error);
      if (refusal)
        throw new MeshError(
          'VALIDATION_FAILED',
          `upload.url: refused: "${refusal.host ?? '(invalid URL)'}" is not an address the gateway may send to (FLOWMESH_OUTBOUND_ALLOW_CIDRS)`,
          { param: 'upload.url' },
        );
      throw new MeshError('UNAVAILABLE', `the image could not be stored: ${(error as Error).message}`);
    }
    await response.body?.cancel().catch(() => undefined);
    if (!response.ok)
      throw new MeshError(
        'UNAVAILABLE',
        `the image could not be stored: the object storage answered ${response.status} to its upload link`,
      );
  }

  async onModuleDestroy(): Promise<void> {
    await this.dispatcher.destroy();
  }
}
