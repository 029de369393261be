import { Type, type Static } from '@sinclair/typebox';
import { ROLES } from '../../shared/access.js';

const Role = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  { description: 'admin, integration, store or read (PRODUCT §4)' },
);
const ClientName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\u0000-\\u001f\\u007f]+$',
  description: 'Unique client name (created_by / modified_by of what it writes)',
});

export const CreateClientBody = Type.Object(
  {
    name: ClientName,
    role: Role,
    stores: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 1000,
        description: 'Store numbers (store clients only)',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        maxLength: 4000,
        description:
          'Space-separated scopes narrowing the client (docs/security.md "Scopes"); absent: everything its role gives',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateClientBody = Static<typeof CreateClientBody>;

export const ClientParams = Type.Object({ name: ClientName });

export const CreatedClient = Type.Object({
  name: Type.String(),
  client_id: Type.String(),
  client_secret: Type.String({ description: 'Shown only in this answer; only its hash is kept' }),
});

export const RotatedSecret = Type.Object({
  name: Type.String(),
  client_id: Type.String(),
  client_secret: Type.String({ description: 'The new secret, shown only in this answer' }),
  previous_secret_valid_until: Type.String({ description: 'The previous secret works until then (24 h grace period)' }),
});

const OptionalText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const Client = Type.Object({
  name: Type.String(),
  client_id: Type.String(),
  role: Type.String(),
  stores: Type.Union([Type.Array(Type.String()), Type.Null()]),
  scope: OptionalText('The registered narrowing scope; null: everything its role gives'),
  created_on: Type.String(),
  created_by: Type.String(),
  secret_rotated_on: OptionalText('When the secret was last rotated'),
  previous_secret_valid_until: OptionalText('While the grace period of the previous secret runs'),
  revoked: OptionalText('When the client was revoked; null: live'),
});

export const ClientList = Type.Object({ clients: Type.Array(Client) });
