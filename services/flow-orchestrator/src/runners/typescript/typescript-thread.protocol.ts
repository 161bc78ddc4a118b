/** Messages between the TypeScript runner and its worker threads. */
export interface JobFailure {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
}

export interface ThreadJob {
  readonly content: string;
  /** The arguments as JSON, parsed inside the job's realm so they are its own objects. */
  readonly argsJson: string;
  readonly env: Readonly<Record<string, string>>;
  readonly entrypoint: string;
  readonly maxResultBytes: number;
  readonly path?: string | null;
}

export type ThreadInbound = { readonly type: 'run'; readonly job: ThreadJob };

export type ThreadOutbound =
  | { readonly type: 'ready' }
  | { readonly type: 'log'; readonly line: string }
  /** `json` is absent when the result was over `maxResultBytes`; `bytes` is its size. */
  | {
      readonly type: 'done';
      readonly ok: true;
      readonly json?: string;
      readonly bytes: number;
      readonly reusable: boolean;
    }
  | { readonly type: 'done'; readonly ok: false; readonly error: JobFailure; readonly reusable: boolean };
