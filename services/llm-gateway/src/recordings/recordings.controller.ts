import { MeshError, ReplayUploadSchema, type RecordingAnswer } from '@flowmesh/contracts';
import { parseWith, requireBearerToken } from '@flowmesh/http';
import { Body, Controller, Get, Headers, HttpCode, Param, Put } from '@nestjs/common';
import { z } from 'zod';
import { requestDigest } from './canonical-request.js';
import { RecordingRepository } from './recording.repository.js';
import { RecordingsService } from './recordings.service.js';

const RecordingIdSchema = z.uuid();

/**
 * A workspace's recordings over HTTP, for `flowmesh eval run --record` / `--replay`: read one
 * after its run (`GET`), upload one before a replay (`PUT`). Any member of the workspace (its
 * bearer authenticated there) reads and writes its recordings, and only its own: the workspace
 * is part of every key.
 */
@Controller('api/w/:workspace/ai/recordings')
export class RecordingsController {
  constructor(
    private readonly service: RecordingsService,
    private readonly recordings: RecordingRepository,
  ) {}

  @Get(':id')
  async read(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspace') workspace: string,
    @Param('id') id: string,
  ): Promise<RecordingAnswer> {
    const recordingId = await this.authorized(authorization, workspace, id);
    const stored = await this.recordings.read(workspace, recordingId);
    if (!stored) throw new MeshError('NOT_FOUND', `no recording ${recordingId} in workspace ${workspace}`);
    return { id: recordingId, ...stored };
  }

  @Put(':id')
  @HttpCode(204)
  async upload(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspace') workspace: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<void> {
    const recordingId = await this.authorized(authorization, workspace, id);
    const { calls } = parseWith(ReplayUploadSchema, body);
    // The digest is the gateway's to compute: a request edited in the file is matched as edited.
    await this.recordings.upload(
      workspace,
      recordingId,
      calls.map((call) => ({ ...call, digest: requestDigest(call.request) })),
    );
  }

  private async authorized(
    authorization: string | undefined,
    workspace: string,
    id: string,
  ): Promise<string> {
    const token = requireBearerToken(authorization);
    const recordingId = parseWith(RecordingIdSchema, id, 'recording id');
    await this.service.checkCaller({ token }, workspace);
    return recordingId;
  }
}
