import { MeshError, type Actor, type Conversation } from '@flowmesh/contracts';
import type { FlowAccess, FlowAction } from '../access/flow-access.service.js';
import type { ConversationRepository } from './conversation.repository.js';

/** The conversation, once the caller is known to be allowed `action` on its flow. */
export async function findPermittedConversation(
  access: FlowAccess,
  conversations: ConversationRepository,
  request: { actor: Actor; workspace: string; conversationId: string },
  action: FlowAction,
): Promise<Conversation> {
  const { actor, workspace, conversationId } = request;
  const conversation = await conversations.find(workspace, conversationId);
  if (!conversation) {
    await access.authenticate(actor, workspace);
    throw new MeshError('NOT_FOUND', `no conversation ${conversationId} in workspace ${workspace}`, {
      conversationId,
    });
  }
  await access.assertAllowed(actor, workspace, conversation.flowPath, action);
  return conversation;
}
