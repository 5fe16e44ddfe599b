import { array, int16, int32, message, scalarArray, string, uuid, type MessageOf } from '../codec/schema';
import type { DeleteTopicsResponse as SimDeleteTopicsResponse, DeleteTopicsTopic } from '../../controller/rules/deleteTopics';
import { defineApi } from './api';
import { code } from './support';

// [DeleteTopicsRequest.json, DeleteTopicsResponse.json]; v6+ names topics by name or id.
export const DeleteTopicsRequest = message('DeleteTopicsRequest', '0-6', '4+', [
  array('topics', '6+', [string('name', '6+', { nullable: '6+', default: null }), uuid('topicId', '6+')]),
  scalarArray('topicNames', '0-5', 'string'),
  int32('timeoutMs', '0+'),
]);

export const DeleteTopicsResponse = message('DeleteTopicsResponse', '0-6', '4+', [
  int32('throttleTimeMs', '1+'),
  array('responses', '0+', [
    string('name', '0+', { nullable: '6+' }),
    uuid('topicId', '6+'),
    int16('errorCode', '0+'),
    string('errorMessage', '5+', { nullable: '5+', default: null }),
  ]),
]);

export type DeleteTopicsRequestData = MessageOf<typeof DeleteTopicsRequest>;
export type DeleteTopicsResponseData = MessageOf<typeof DeleteTopicsResponse>;

// KIP-896 removed version 0.
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

export const deleteTopics = defineApi({
  key: 20,
  name: 'DeleteTopics',
  request: DeleteTopicsRequest,
  response: DeleteTopicsResponse,
  minVersion: 1,
  maxVersion: 6,
  // [KafkaApis: forwarded to the active controller; ControllerApis.deleteTopics]
  handle(ctx, req) {
    const b = ctx.broker;
    const timeoutMs = Math.max(1000, req.timeoutMs);
    if (!b.config['delete.topic.enable']) {
      const error = code('TOPIC_DELETION_DISABLED');
      const names = ctx.version < 6 ? req.topicNames.map((name) => ({ name, topicId: ZERO })) : req.topics.map((t) => ({ name: t.name, topicId: t.topicId }));
      return ctx.respond({ throttleTimeMs: 0, responses: names.map((t) => ({ ...t, errorCode: error, errorMessage: 'Topic deletion is disabled.' })) });
    }
    const asked: DeleteTopicsTopic[] =
      ctx.version < 6
        ? req.topicNames.map((name) => ({ name, topicId: null }))
        : req.topics.map((t) => (t.name !== null && t.topicId === ZERO ? { name: t.name, topicId: null } : { name: null, topicId: t.topicId }));
    ctx.state.forwardToController({ type: 'DeleteTopics', topics: asked }, timeoutMs, (r) => {
      const resp = r as SimDeleteTopicsResponse | null;
      const results = resp
        ? resp.results.map((t) => ({ name: t.name, topicId: t.topicId ?? ZERO, errorCode: code(t.error), errorMessage: t.error === 'NONE' ? null : t.message }))
        : asked.map((t) => ({ name: t.name, topicId: t.topicId ?? ZERO, errorCode: code('REQUEST_TIMED_OUT'), errorMessage: `no active controller answered within ${timeoutMs} ms` }));
      // Before v6 every result names its topic (a topic asked for by id is not possible there).
      ctx.respond({ throttleTimeMs: 0, responses: results.map((t) => ({ ...t, name: t.name ?? (ctx.version < 6 ? '' : null) })) });
    });
  },
});
