import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Ack } from '../../shared/schemas.js';
import { postCounts } from './counts.js';
import {
  Assignment,
  AssignmentBody,
  AssignmentParams,
  AssignmentsPage,
  CountsBody,
  LinesPage,
  LinesQuery,
  ListQuery,
  StoreParams,
  SubmitAck,
} from './schema.js';
import {
  cancelAssignment,
  createAssignment,
  getAssignment,
  listAssignments,
  listLines,
  startAssignment,
} from './service.js';
import { submitAssignment } from './submission.js';

const TAGS = ['counting'];
const BASE = '/stores/:store_number/countingassignments';

/** Counting assignments (PRODUCT §10, docs/counting.md): a store counts what it was asked to count. */
export const countingAssignmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    BASE,
    {
      schema: {
        tags: TAGS,
        summary: 'Create a counting assignment for the store (PRODUCT §10): status open',
        params: StoreParams,
        body: AssignmentBody,
        response: { 201: Assignment },
      },
      config: { access: 'store' },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await createAssignment(request.ctx, request.params.store_number, request.body, request.principal!)),
  );

  app.get(
    BASE,
    {
      schema: {
        tags: TAGS,
        summary: "List the store's counting assignments, by status (PRODUCT §10)",
        params: StoreParams,
        querystring: ListQuery,
        response: { 200: AssignmentsPage },
      },
      config: { access: 'store' },
    },
    (request) => listAssignments(request.ctx, request.params.store_number, request.query, request.principal!),
  );

  app.get(
    `${BASE}/:id`,
    {
      schema: {
        tags: TAGS,
        summary: 'One counting assignment with its status and progress (PRODUCT §10)',
        params: AssignmentParams,
        response: { 200: Assignment },
      },
      config: { access: 'store' },
    },
    (request) => getAssignment(request.ctx, request.params.store_number, Number(request.params.id), request.principal!),
  );

  app.post(
    `${BASE}/:id/start`,
    {
      schema: {
        tags: TAGS,
        summary: 'Start counting: the lines are fixed with the levels expected now (PRODUCT §10)',
        params: AssignmentParams,
        response: { 200: Assignment },
      },
      config: { access: 'store' },
    },
    (request) =>
      startAssignment(request.ctx, request.params.store_number, Number(request.params.id), request.principal!),
  );

  app.get(
    `${BASE}/:id/lines`,
    {
      schema: {
        tags: TAGS,
        summary: "The assignment's lines; expected and variance absent for a store token while blind (PRODUCT §10)",
        params: AssignmentParams,
        querystring: LinesQuery,
        response: { 200: LinesPage },
      },
      config: { access: 'store' },
    },
    (request) =>
      listLines(request.ctx, request.params.store_number, Number(request.params.id), request.query, request.principal!),
  );

  app.post(
    `${BASE}/:id/counts`,
    {
      schema: {
        tags: TAGS,
        summary: 'Count lines by product number or barcode: a recount replaces, mode add adds (PRODUCT §10); atomic',
        params: AssignmentParams,
        body: CountsBody,
        response: { 200: Ack },
      },
      config: { access: 'store' },
    },
    async (request) => ({
      success: true,
      message: await postCounts(
        request.ctx,
        request.params.store_number,
        Number(request.params.id),
        request.body,
        request.principal!,
      ),
    }),
  );

  app.post(
    `${BASE}/:id/submit`,
    {
      schema: {
        tags: TAGS,
        summary: 'Submit: every counted line is booked as a count at its own moment (PRODUCT §10)',
        params: AssignmentParams,
        response: { 200: SubmitAck },
      },
      config: { access: 'store' },
    },
    async (request) => {
      const { ids, message } = await submitAssignment(
        request.ctx,
        request.params.store_number,
        Number(request.params.id),
        request.principal!,
      );
      return { success: true, data: ids, message };
    },
  );

  app.post(
    `${BASE}/:id/cancel`,
    {
      schema: {
        tags: TAGS,
        summary: 'Cancel an open or counting assignment; it books nothing (PRODUCT §10)',
        params: AssignmentParams,
        response: { 200: Assignment },
      },
      config: { access: 'store' },
    },
    (request) =>
      cancelAssignment(request.ctx, request.params.store_number, Number(request.params.id), request.principal!),
  );
};
