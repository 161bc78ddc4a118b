import {
  createRegistryIdentityClient,
  MeshError,
  type Actor,
  type ListSpendReply,
  type RegistryIdentityClient,
  type RequestOf,
  type Spend,
  type gatewayBudgetContract,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { SpendRepository, type SpendKey } from './spend.repository.js';

type SetBudget = RequestOf<typeof gatewayBudgetContract.setBudget>;
type DeleteBudget = RequestOf<typeof gatewayBudgetContract.deleteBudget>;
type ListSpend = RequestOf<typeof gatewayBudgetContract.listSpend>;

/**
 * Setting budgets and reading spend, for admins of the workspace only (NATS, HTTP and gRPC ask
 * here): a member may not raise the limit that stops their own runs, nor read others' spend.
 */
@Injectable()
export class BudgetsService {
  private readonly identity: RegistryIdentityClient;

  constructor(
    mesh: MeshClient,
    private readonly spend: SpendRepository,
  ) {
    this.identity = createRegistryIdentityClient(mesh);
  }

  async set(request: SetBudget): Promise<Spend> {
    await this.requireAdmin(request.actor, request.workspace, 'set budgets');
    return this.spend.setLimits(request.workspace, keyOf(request), {
      maxTokens: request.maxTokens ?? null,
      maxUsd: request.maxUsd ?? null,
    });
  }

  async delete(request: DeleteBudget): Promise<{ deleted: boolean }> {
    await this.requireAdmin(request.actor, request.workspace, 'delete budgets');
    return { deleted: await this.spend.clearLimits(request.workspace, keyOf(request)) };
  }

  async list(request: ListSpend): Promise<ListSpendReply> {
    await this.requireAdmin(request.actor, request.workspace, 'read spend');
    const { scope, target, budgetedOnly, limit } = request;
    const filter = {
      limit,
      ...(scope ? { scope } : {}),
      ...(scope === 'workspace' ? { target: '' } : target !== undefined ? { target } : {}),
      ...(budgetedOnly ? { budgetedOnly } : {}),
    };
    return { spend: await this.spend.list(request.workspace, filter) };
  }

  private async requireAdmin(actor: Actor, workspace: string, what: string): Promise<void> {
    const caller = await this.identity.authenticate({ token: actor.token, workspace });
    if (!caller.isAdmin)
      throw new MeshError('PERMISSION_DENIED', `only an admin of workspace ${workspace} may ${what}`, {
        workspace,
      });
  }
}

function keyOf(request: { scope: SpendKey['scope']; target?: string | undefined }): SpendKey {
  return { scope: request.scope, target: request.scope === 'workspace' ? '' : (request.target ?? '') };
}
