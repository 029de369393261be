/**
 * What a scenario's prepare() started (temporary directories, apps, servers), released in
 * reverse order by the session's close() — or at once when prepare() fails half-way, so a
 * failed scenario leaves no server listening and no files behind.
 */
export class Resources {
  private readonly releases: Array<() => unknown> = [];

  add<T>(resource: T, release: (resource: T) => unknown): T {
    this.releases.push(() => release(resource));
    return resource;
  }

  async release(): Promise<void> {
    while (this.releases.length > 0) {
      await this.releases.pop()!();
    }
  }

  /** Runs `prepare`; releases everything added so far if it throws. */
  async preparing<T>(prepare: (resources: Resources) => Promise<T>): Promise<T> {
    try {
      return await prepare(this);
    } catch (error) {
      await this.release().catch(() => undefined);
      throw error;
    }
  }
}
