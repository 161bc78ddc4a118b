import { HttpTriggerSchema, type HttpTrigger, type NewHttpTrigger } from '@flowmesh/contracts';
import { z } from 'zod';
import type { RegistryHttp } from '../sync/registry-connection.js';

const PER_PAGE = 1_000;
/** 100 000 rows at most: a bound, not a limit anyone meets. */
const MAX_PAGES = 100;

/** The mesh's HTTP route routes (Windmill's `/api/w/<workspace>/http_triggers/...`), as the caller. */
export class HttpTriggersApi {
  constructor(private readonly http: RegistryHttp) {}

  /**
   * Every route the caller may read (under `pathStart`), page after page: the mesh pages
   * before it leaves out what the caller may not read, so only an empty page says the end.
   */
  async list(filter: { readonly pathStart?: string } = {}): Promise<HttpTrigger[]> {
    const all: HttpTrigger[] = [];
    const start = filter.pathStart === undefined ? '' : `&path_start=${encodeURIComponent(filter.pathStart)}`;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const rows = await this.http.get(
        `http_triggers/list?per_page=${PER_PAGE}&page=${page}${start}`,
        z.array(HttpTriggerSchema),
      );
      if (rows.length === 0) break;
      all.push(...rows);
    }
    return all;
  }

  get(path: string): Promise<HttpTrigger> {
    return this.http.get(`http_triggers/get/${path}`, HttpTriggerSchema);
  }

  exists(path: string): Promise<boolean> {
    return this.http.get(`http_triggers/exists/${path}`, z.boolean());
  }

  create(trigger: NewHttpTrigger): Promise<string> {
    return this.http.postText('http_triggers/create', trigger);
  }

  /** `trigger.path` is the route's new path: a rename when it differs from `path`. */
  update(path: string, trigger: NewHttpTrigger): Promise<string> {
    return this.http.postText(`http_triggers/update/${path}`, trigger);
  }

  delete(path: string): Promise<string> {
    return this.http.deleteText(`http_triggers/delete/${path}`);
  }

  setEnabled(path: string, enabled: boolean): Promise<string> {
    return this.http.postText(`http_triggers/setenabled/${path}`, { enabled });
  }
}
