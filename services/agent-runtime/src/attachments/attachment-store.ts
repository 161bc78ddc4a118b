import { randomUUID } from 'node:crypto';
import {
  HeadObjectCommand,
  GetObjectCommand,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { AttachmentPart, UrlPart, UserAttachment } from '@flowmesh/contracts';
import type { OnApplicationShutdown } from '@nestjs/common';
import type { AttachmentLocation, AttachmentSettings } from '../agent-runtime.config.js';
import type { ImageTarget } from '../images/generate-image.js';
import { inputError } from '../loop/agent-brain.js';

/** The largest object a step may attach (what the providers take for one image or PDF). */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
/** How long the link the llm-gateway fetches an attachment by stays valid. */
const LINK_TTL_S = 900;
const S3_TIMEOUT_MS = 10_000;

const MEDIA_TYPES: Readonly<Record<string, UrlPart['mediaType']>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};
const ACCEPTED = new Set(Object.values(MEDIA_TYPES));

/**
 * The objects (images, PDFs) steps attach to their user message (`user_attachments`), in the
 * mesh's object storage. A workspace reads only under its own locations
 * (`FLOWMESH_AGENT_ATTACHMENTS`), checked each time a part is used, also when an earlier run's
 * attachment is replayed from memory. The model is sent a short-lived signed link that the
 * llm-gateway fetches through its SSRF guard, so no object's bytes cross NATS.
 */
export class AttachmentStore implements OnApplicationShutdown {
  private readonly client: S3Client;

  constructor(private readonly settings: AttachmentSettings) {
    this.client = new S3Client({
      region: settings.s3.region,
      endpoint: settings.s3.endpoint,
      forcePathStyle: settings.s3.forcePathStyle,
      credentials: settings.s3.credentials,
      maxAttempts: 2,
      requestHandler: { connectionTimeout: S3_TIMEOUT_MS, requestTimeout: S3_TIMEOUT_MS },
    });
  }

  /**
   * Checks one of a step's attachments (where it is, that it exists, its size and type) and gives
   * the part its user message holds. A problem fails the step naming `field`.
   */
  async describe(workspace: string, attachment: UserAttachment, field: string): Promise<AttachmentPart> {
    const { bucket, key } = attachment;
    const refusal = this.refusal(workspace, bucket, key);
    if (refusal) throw inputError(field, refusal);
    let head;
    try {
      head = await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), {
        abortSignal: AbortSignal.timeout(S3_TIMEOUT_MS),
      });
    } catch (error) {
      if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound')
        throw inputError(field, `there is no object ${key} in ${bucket}`);
      throw inputError(field, `${bucket}/${key} could not be read: ${(error as Error).message}`);
    }
    const size = head.ContentLength ?? 0;
    if (size > MAX_ATTACHMENT_BYTES)
      throw inputError(
        field,
        `${key} has ${size} bytes; an attachment may have at most ${MAX_ATTACHMENT_BYTES}`,
      );
    const mediaType = mediaTypeOf(head.ContentType, key);
    if (!mediaType)
      throw inputError(
        field,
        `${key} is ${head.ContentType ?? 'of an unknown type'}; attachments are images (PNG, JPEG, GIF, WebP) or PDFs`,
      );
    const filename = (attachment as { filename?: unknown }).filename;
    return {
      type: 'attachment',
      object: { key, storage: bucket },
      mediaType,
      ...(typeof filename === 'string' && filename !== '' ? { filename } : {}),
    };
  }

  /** The part as the model is sent it: a signed link, or why it cannot be (said to the model). */
  async linkOf(workspace: string, part: AttachmentPart): Promise<UrlPart | undefined> {
    const bucket = part.object.storage ?? this.settings.locations[0]?.bucket;
    if (!bucket || this.refusal(workspace, bucket, part.object.key)) return undefined;
    const url = await getSignedUrl(
      this.client,
      new GetObjectCommand({ Bucket: bucket, Key: part.object.key }),
      {
        expiresIn: LINK_TTL_S,
      },
    );
    const mediaType = ACCEPTED.has(part.mediaType as UrlPart['mediaType'])
      ? (part.mediaType as UrlPart['mediaType'])
      : undefined;
    return {
      type: 'url',
      url,
      ...(mediaType ? { mediaType } : {}),
      ...(part.filename ? { filename: part.filename } : {}),
    };
  }

  /**
   * Where an image a step generates goes: `ai_images/<job>/<uuid>.png` under the workspace's first
   * location (so a later step may attach it), with a signed link to put it there; the gateway
   * uploads with that link and holds no storage credentials.
   */
  async imageTarget(workspace: string, jobId: string): Promise<ImageTarget> {
    const location = this.settings.locations[0];
    if (!location) throw new Error('FLOWMESH_AGENT_ATTACHMENTS names no location');
    const key = `${prefixFor(location, workspace)}ai_images/${jobId}/${randomUUID()}.png`;
    const uploadUrl = await getSignedUrl(
      this.client,
      new PutObjectCommand({ Bucket: location.bucket, Key: key }),
      { expiresIn: LINK_TTL_S },
    );
    return { bucket: location.bucket, key, uploadUrl };
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }

  /** Why `workspace` may not read `bucket/key`, or undefined when it may. */
  private refusal(workspace: string, bucket: string, key: string): string | undefined {
    if (key.split('/').some((segment) => segment === '..' || segment === '.'))
      return `${key} is not a plain object key`;
    if (key.startsWith('memory/')) return `${key} is in memory-service's storage, which no step reads`;
    const allowed = this.settings.locations
      .filter((location) => location.bucket === bucket)
      .map((location) => prefixFor(location, workspace));
    if (allowed.some((prefix) => key.startsWith(prefix))) return undefined;
    const where = this.settings.locations.map(
      (location) => `${location.bucket}/${prefixFor(location, workspace)}`,
    );
    return `${bucket}/${key} is outside what this workspace may attach (${where.join(', ')}; FLOWMESH_AGENT_ATTACHMENTS)`;
  }
}

function prefixFor(location: AttachmentLocation, workspace: string): string {
  return location.prefix.replaceAll('{workspace}', workspace);
}

/** The object's declared type when it is one we take, else what its name says. */
function mediaTypeOf(contentType: string | undefined, key: string): string | undefined {
  const declared = contentType?.split(';')[0]?.trim().toLowerCase();
  if (declared && ACCEPTED.has(declared as UrlPart['mediaType'])) return declared;
  return MEDIA_TYPES[key.split('.').pop()?.toLowerCase() ?? ''];
}
