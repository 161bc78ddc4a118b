import { HttpTriggerSchema, type HttpTrigger, type NewHttpTrigger } from '@flowmesh/contracts';
import { z } from 'zod';
import type { RegistryHttp } from '../sync/registry-connection.js';

/** The mesh's HTTP route routes (Windmill's `/api/w/<workspace>/http_triggers/...`), as the caller. */
export class HttpTriggersApi {
  constructor(private readonly http: RegistryHttp) {}

  list(filter: { readonly pathStart?: string } = {}): Promise<HttpTrigger[]> {
    const query = filter.pathStart === undefined ? '' : `?path_start=${encodeURIComponent(filter.pathStart)}`;
    return this.http.get(`http_triggers/list${query}`, z.array(HttpTriggerSchema));
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
