import type { Selectable } from 'kysely';
import type { ApiTokenTable } from '../../db/schema.js';

// The rows this module's repository returns, in one place: mapping turns them into API shapes.

export type TokenRow = Selectable<ApiTokenTable>;
