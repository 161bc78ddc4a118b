import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** A real S3 API (`s3rver`) on a random port over a temporary directory, stoppable and restartable. */
export class S3rverInstance {
  private server?: S3rver;
  /**
   * 0 until the first start, which takes a port the OS picks (no window for another to take it
   * first); `resume` binds that same port again, since the service was told the endpoint.
   */
  private boundPort = 0;

  private constructor(
    readonly directory: string,
    readonly bucket: string,
  ) {}

  static async start(bucket = 'flowmesh-memory'): Promise<S3rverInstance> {
    const instance = new S3rverInstance(await mkdtemp(join(tmpdir(), 's3rver-')), bucket);
    await instance.resume();
    return instance;
  }

  get port(): number {
    return this.boundPort;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The service's S3 settings for this server. */
  get env(): Record<string, string> {
    return {
      S3_BUCKET: this.bucket,
      S3_ENDPOINT: this.endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
      // A slow write on a loaded machine is no failure; a paused server refuses at once anyway.
      FLOWMESH_MEMORY_S3_TIMEOUT_MS: '20000',
    };
  }

  async resume(): Promise<void> {
    this.server = new S3rver({
      port: this.boundPort,
      address: '127.0.0.1',
      silent: true,
      directory: this.directory,
      configureBuckets: [{ name: this.bucket, configs: [] }],
    });
    this.boundPort = (await this.server.run()).port;
  }

  /** Stops answering (the data stays on disk for `resume`). */
  async pause(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }

  async stop(): Promise<void> {
    await this.pause();
    await rm(this.directory, { recursive: true, force: true });
  }
}
