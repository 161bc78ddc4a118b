/** Who answers an approval: a name from a signed link, or an identity the registry vouched for. */
export type Approver =
  | { readonly kind: 'anonymous'; readonly name: string }
  | {
      readonly kind: 'user';
      readonly name: string;
      readonly email: string;
      readonly isAdmin: boolean;
      readonly groups: readonly string[];
    };
