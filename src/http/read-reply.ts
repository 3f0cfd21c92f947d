/**
 * The read path's response half as request and reply decorations, so route files (which do not import server/)
 * answer reads in one call: `reply.sendRead(...)` for events, `reply.sendPlan(...)` for a planned cursor batch,
 * `reply.sendFollow(...)` for a follow,
 * `request.readMediaType(format)` to negotiate before anything is prepared, `request.planRead(...)` to plan only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { MediaType } from '../encode/encoder-registry.js';
import type { PlannedRead } from '../query/planner.js';
import { Followers } from '../read/follow/followers.js';
import type { FollowOptions } from '../entry/plan-follow.js';
import type { ReadOptions } from '../entry/plan-read.js';
import { runFollow } from './follow-read.js';
import { mediaTypeOf } from './negotiate-media.js';
import { planReadOf, runRead } from './run-read.js';
import { streamRead, type StreamOptions } from './stream-read.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The media type to answer with (`format=` or `Accept`); none acceptable is a 406. */
    readMediaType(format: string | undefined): MediaType;
    /** Plans a read for this request's caller without running it (a read session plans its whole window). */
    planRead(o: ReadOptions): Promise<PlannedRead>;
  }
  interface FastifyReply {
    /** Plans and answers a read of events (or explains it). */
    sendRead(o: ReadOptions): Promise<FastifyReply>;
    /** Streams a planned read in `media`. */
    sendPlan(plan: PlannedRead, media: MediaType, o: StreamOptions): Promise<FastifyReply>;
    /** Follows a read: its window, then new events as they settle, until the client leaves (API.md). */
    sendFollow(o: FollowOptions): Promise<FastifyReply>;
  }
}

async function readReply(app: FastifyInstance): Promise<void> {
  app.decorateRequest('readMediaType', function (this: FastifyRequest, format: string | undefined) {
    return mediaTypeOf(this, format);
  });
  app.decorateRequest('planRead', function (this: FastifyRequest, o: ReadOptions) {
    return planReadOf(app, this, o);
  });
  app.decorateReply('sendRead', function (this: FastifyReply, o: ReadOptions) {
    return runRead(app, this.request, this, o);
  });
  app.decorateReply('sendPlan', function (this: FastifyReply, plan: PlannedRead, media: MediaType, o: StreamOptions) {
    return streamRead(app, this.request, this, plan, media, o);
  });
  // Open follows, counted per caller (limits.maxFollowers); they never end by themselves, so closing ends them.
  const followers = new Followers(app.tg.config.limits.maxFollowers);
  app.addHook('preClose', async () => followers.endAll());
  app.decorateReply('sendFollow', function (this: FastifyReply, o: FollowOptions) {
    return runFollow(app, this.request, this, followers, o);
  });
}

export default fp(readReply, { name: 'read-reply' });
