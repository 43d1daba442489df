// One WebSocket subscription to one topic (operation:<id>, logs:<cluster>/<namespace>/<pod>, ...), shared
// by the live views: it opens the socket with the session's token, subscribes once open, hands over the
// topic's messages, and says once, for good, when the socket cannot be used (no token, no WebSocket in
// this browser, no open within the connect timeout, an error frame, or a close we did not ask for), so
// the caller falls back to polling.

import { getToken } from './auth';
import { websocketUrl } from './config';

export const CONNECT_TIMEOUT_MS = 5000;

/** How a live view is fed, for the indicator it shows. */
export type Transport = 'connecting' | 'websocket' | 'polling';

export interface TopicMessage {
  topic?: string;
  type?: string;
  data?: unknown;
}

export interface TopicHandlers {
  /** The server acknowledged the subscription: from now on every message of the topic arrives. */
  onSubscribed?: () => void;
  /** A message of the topic (its `type` and `data`). */
  onMessage: (message: TopicMessage) => void;
  /** The socket cannot be used; called at most once, never after the returned close function. */
  onFallback: () => void;
}

/** Subscribes to `topic`; returns the function that closes the socket. */
export function subscribeTopic(topic: string, handlers: TopicHandlers, connectTimeoutMs = CONNECT_TIMEOUT_MS): () => void {
  const token = getToken();
  if (!token || typeof WebSocket === 'undefined') {
    handlers.onFallback();
    return () => undefined;
  }
  let done = false;
  let socket: WebSocket | null = null;
  const fallBack = () => {
    if (done) return;
    done = true;
    window.clearTimeout(timer);
    handlers.onFallback();
    socket?.close();
  };
  const timer = window.setTimeout(() => {
    if (socket?.readyState !== WebSocket.OPEN) fallBack();
  }, connectTimeoutMs);
  try {
    socket = new WebSocket(websocketUrl(token));
  } catch {
    fallBack();
    return () => undefined;
  }
  socket.onopen = () => {
    window.clearTimeout(timer);
    socket?.send(JSON.stringify({ action: 'subscribe', topics: [topic] }));
  };
  socket.onmessage = (event) => {
    if (done) return;
    let message: TopicMessage;
    try {
      message = JSON.parse(String(event.data)) as TopicMessage;
    } catch {
      return; // not a message of ours
    }
    if (message.type === 'subscribed') handlers.onSubscribed?.();
    else if (message.type === 'error' && (!message.topic || message.topic === topic)) fallBack();
    else if (message.topic === topic) handlers.onMessage(message);
  };
  socket.onerror = fallBack;
  socket.onclose = fallBack;
  return () => {
    done = true;
    window.clearTimeout(timer);
    socket?.close();
  };
}
