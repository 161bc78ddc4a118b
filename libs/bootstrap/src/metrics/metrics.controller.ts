import { serveMetrics } from '@flowmesh/telemetry';
import { Controller, Get, Req, Res } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** `/metrics`: every metric of the process, in the Prometheus text format, for a scraper. */
@Controller()
export class MetricsController {
  @Get('metrics')
  scrape(@Req() request: IncomingMessage, @Res() response: ServerResponse): void {
    serveMetrics(request, response);
  }
}
