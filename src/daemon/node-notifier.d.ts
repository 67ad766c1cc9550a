/** The small part of node-notifier (which ships no types) the daemon uses. */
declare module 'node-notifier' {
  interface NotifyOptions {
    readonly title: string;
    readonly message: string;
    readonly urgency?: 'low' | 'normal' | 'critical';
    readonly 'app-name'?: string;
    readonly actions?: readonly string[];
    readonly wait?: boolean;
    readonly timeout?: number | false;
  }
  type NotifyCallback = (error: Error | string | null, response: unknown, metadata?: { readonly activationValue?: unknown }) => void;
  interface Notifier {
    notify(options: NotifyOptions, callback?: NotifyCallback): unknown;
  }
  const notifier: Notifier;
  export default notifier;
}
