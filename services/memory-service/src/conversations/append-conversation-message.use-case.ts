import type { AppendConversationMessageRequestSchema } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { FlowAccess } from '../access/flow-access.service.js';
import { resolveMemoryKey } from '../memory/memory-key.util.js';
import { ConversationRepository } from './conversation.repository.js';

/**
 * Adds an entry to a run's transcript as the flow runs. The conversation is the run's memory id,
 * never a step's own, so a chat keeps one transcript whatever its steps remember.
 */
@Injectable()
export class AppendConversationMessageUseCase {
  constructor(
    private readonly access: FlowAccess,
    private readonly conversations: ConversationRepository,
  ) {}

  async append(request: z.output<typeof AppendConversationMessageRequestSchema>) {
    const { actor, workspace, flowPath } = request;
    await this.access.assertAllowed(actor, workspace, flowPath, 'read');
    const { memoryId } = resolveMemoryKey(workspace, flowPath, request.conversation);
    const appended = await this.conversations.append({
      workspace,
      conversationId: memoryId,
      flowPath,
      jobId: request.jobId,
      stepId: request.stepId,
      role: request.role,
      content: request.content,
    });
    return { conversationId: memoryId, ...appended };
  }
}
