import {
  PreviewScheduleReplySchema,
  ScheduleSchema,
  type EditSchedule,
  type NewSchedule,
  type Schedule,
} from '@flowmesh/contracts';
import { z } from 'zod';
import type { RegistryHttp } from '../sync/registry-connection.js';

/** Windmill answers a preview as a bare list; the contract's reply is `{next}`: either is read. */
const PreviewAnswerSchema = z.union([
  z.array(z.string()),
  PreviewScheduleReplySchema.transform((reply) => reply.next),
]);

export interface PreviewOptions {
  readonly timezone: string;
  readonly count?: number;
  readonly cronVersion?: 'v1' | 'v2';
}

const PER_PAGE = 1_000;
/** 100 000 rows at most: a bound, not a limit anyone meets. */
const MAX_PAGES = 100;

/** The mesh's schedule routes (Windmill's `/api/w/<workspace>/schedules/...`), as the caller. */
export class SchedulesApi {
  constructor(private readonly http: RegistryHttp) {}

  /**
   * Every schedule the caller may read (under `pathStart`), page after page: the mesh pages
   * before it leaves out what the caller may not read, so only an empty page says the end.
   */
  async list(filter: { readonly pathStart?: string } = {}): Promise<Schedule[]> {
    const all: Schedule[] = [];
    const start = filter.pathStart === undefined ? '' : `&path_start=${encodeURIComponent(filter.pathStart)}`;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const rows = await this.http.get(
        `schedules/list?per_page=${PER_PAGE}&page=${page}${start}`,
        z.array(ScheduleSchema),
      );
      if (rows.length === 0) break;
      all.push(...rows);
    }
    return all;
  }

  get(path: string): Promise<Schedule> {
    return this.http.get(`schedules/get/${path}`, ScheduleSchema);
  }

  exists(path: string): Promise<boolean> {
    return this.http.get(`schedules/exists/${path}`, z.boolean());
  }

  /** Answers the schedule's path, as Windmill's create does. */
  create(schedule: NewSchedule): Promise<string> {
    return this.http.postText('schedules/create', schedule);
  }

  /** Everything but the target (`script_path`, `is_flow`), which Windmill's edit keeps. */
  update(path: string, edit: EditSchedule): Promise<string> {
    return this.http.postText(`schedules/update/${path}`, edit);
  }

  delete(path: string): Promise<string> {
    return this.http.deleteText(`schedules/delete/${path}`);
  }

  setEnabled(path: string, enabled: boolean): Promise<string> {
    return this.http.postText(`schedules/setenabled/${path}`, { enabled });
  }

  /** The next fire times, ISO date-times in UTC. */
  preview(schedule: string, options: PreviewOptions): Promise<string[]> {
    return this.http.post(
      'schedules/preview',
      {
        schedule,
        timezone: options.timezone,
        ...(options.count === undefined ? {} : { count: options.count }),
        ...(options.cronVersion === undefined ? {} : { cron_version: options.cronVersion }),
      },
      PreviewAnswerSchema,
    );
  }
}
