import { Type, type Static } from '@sinclair/typebox';
import { ROLES } from '../../shared/access.js';

/**
 * What a token may do, as its holder may know it: the console (docs/console.md) shows only
 * the stores and buttons the token can use. Never the token's value or hash. The API still
 * checks every request on its own; this only saves the client from guessing.
 */
export const CurrentToken = Type.Object({
  name: Type.String({ description: 'The token name (created_by / modified_by of what it writes)' }),
  role: Type.Union(
    ROLES.map((role) => Type.Literal(role)),
    { description: 'admin, integration, store or read (PRODUCT §4)' },
  ),
  stores: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Store numbers a store token may use; null: every store (every other role)',
  }),
  expires_at: Type.Union([Type.String(), Type.Null()], { description: 'When the token expires; null: never' }),
  kind: Type.Optional(
    Type.Union([Type.Literal('token'), Type.Literal('client'), Type.Literal('external')], {
      description:
        'Absent for a sot_ token; client: an OAuth2 client access token (name = the client name); external: a token of the configured identity provider (docs/security.md)',
    }),
  ),
  client_id: Type.Optional(Type.String({ description: 'The OAuth2 client, for kind client' })),
});
export type CurrentToken = Static<typeof CurrentToken>;
