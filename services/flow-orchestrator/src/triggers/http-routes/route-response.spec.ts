import { describe, expect, it } from 'vitest';
import { routeAnswerOf } from './route-response.js';

describe('routeAnswerOf (Windmill result_to_response)', () => {
  it('answers a result as JSON, a failure as 500', () => {
    expect(routeAnswerOf(true, { a: 1 })).toEqual({
      status: 200,
      contentType: 'application/json',
      body: '{"a":1}',
      headers: {},
    });
    expect(routeAnswerOf(false, { error: { message: 'x' } }).status).toBe(500);
    expect(routeAnswerOf(true, undefined).body).toBe('null');
  });

  it('honours a composite result', () => {
    expect(
      routeAnswerOf(true, {
        windmill_status_code: 201,
        windmill_content_type: 'text/csv',
        windmill_headers: { 'X-Count': '2', 'Content-Length': '1', 'Bad Header': 'x' },
        result: 'a,b\n1,2',
      }),
    ).toEqual({ status: 201, contentType: 'text/csv', body: 'a,b\n1,2', headers: { 'x-count': '2' } });
    expect(routeAnswerOf(true, { windmill_status_code: 404, missing: true })).toMatchObject({
      status: 404,
      body: '{"missing":true}',
    });
    expect(routeAnswerOf(true, { windmill_status_code: 42 }).status).toBe(200);
  });
});
