import { parseInput } from '../core/validation.js';
import { factorRequired, removeSecondFactor } from './signin-challenge.js';
import { namedAccount, requireUser, type Caller, type UserContext } from './user-context.js';
import type { IdentityInput } from './user-inputs.js';
import type { User } from './user-repo.js';
import { METHOD_FIGURES, type MethodFigures } from './signin-methods/index.js';

/** What an account has of the second factor (`secondFactor`, `userFactors`): the methods' figures and its own. */
export type FactorState = MethodFigures & {
  /** An administrator requires a factor of the account (runtime setting `secondFactorGroups`). */
  required: boolean;
  /** The sign-in providers linked to the account, by id (provider-ops.ts). */
  providers: string[];
};

/**
 * The second factor as a whole (signin-challenge.ts has its shared rules; each method its own
 * operations in signin-methods/): an account's summary, and an administrator's reset.
 */
export function secondFactorOps(ctx: UserContext) {
  async function stateOf(user: User): Promise<FactorState> {
    const figures: Record<string, number | boolean> = Object.assign(
      {},
      ...(await Promise.all(ctx.methods.map((m) => m.figures(user)))),
    );
    const placed = (leads: boolean) =>
      Object.entries(figures).filter(
        ([name]) => (METHOD_FIGURES[name as keyof MethodFigures].leads === true) === leads,
      );
    // The leading figures (the app, the recovery codes) stay first, so the answer keeps its order of members.
    const parts = [
      Object.fromEntries(placed(true)),
      {
        required: await factorRequired(ctx, user),
        providers: (await ctx.links.linksOf(user.id)).map((l) => l.provider),
      },
      Object.fromEntries(placed(false)),
    ];
    // Every listed method's figures are among them (MethodFigures is made of the same list).
    const state: FactorState = Object.assign({}, ...parts);
    return state;
  }

  return {
    secondFactor: async (caller: Caller): Promise<FactorState> => stateOf(requireUser(caller)),

    /** For administrators: an account's second factor. */
    async userFactors(_caller: Caller, input: IdentityInput): Promise<FactorState> {
      return stateOf(await adminTarget(ctx, input));
    },

    /** For administrators: removes an account's second factor (a lost phone); its sessions and passkeys stay. */
    async resetSecondFactor(_caller: Caller, input: IdentityInput): Promise<void> {
      await removeSecondFactor(ctx, await adminTarget(ctx, input));
    },
  };
}

/** The account an administrator names in `input` (name, email or id), or `unknown_user`. */
export async function adminTarget(ctx: UserContext, input: IdentityInput): Promise<User> {
  return namedAccount(ctx, parseInput(ctx.inputs.identity, input).identity);
}
