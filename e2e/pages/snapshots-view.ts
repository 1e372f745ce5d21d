import type { Locator, Page } from 'playwright-core';
import { PageObject } from './page-object';

/** A box's Snapshots tab: the take-a-snapshot form, the lineage tree and its dialogs. */
export class SnapshotsView extends PageObject {
  readonly snapshotName: Locator;
  readonly takeButton: Locator;
  readonly taking: Locator;
  readonly lineage: Locator;
  readonly alert: Locator;

  constructor(
    page: Page,
    readonly box: string,
  ) {
    super(page);
    const form = page.getByRole('form', { name: 'Take a snapshot' });
    this.snapshotName = form.getByRole('textbox', { name: 'Snapshot name' });
    this.takeButton = form.getByRole('button', { name: 'Take snapshot' });
    this.taking = page.getByRole('status', { name: `Taking a snapshot of ${box}` });
    this.lineage = page.getByRole('list', { name: 'Lineage' });
    this.alert = page.getByRole('main').getByRole('alert');
  }

  /** A snapshot's node in the tree (a menu button). */
  snapshot(name: string): Locator {
    return this.lineage.getByRole('button', { name: `Snapshot ${name}`, exact: true });
  }

  /** A box's node in the tree (a link, or plain text for this box). */
  boxNode(name: string): Locator {
    return this.lineage.getByRole('link', { name: `Box ${name}`, exact: true });
  }

  baseNode(name: string): Locator {
    return this.lineage.getByRole('group', { name: `Base ${name}`, exact: true });
  }

  /** Opens a snapshot's menu and picks an action. */
  async act(
    snapshot: string,
    action: 'Restore' | 'Fork into a new box' | 'Make a base' | 'Delete snapshot',
  ): Promise<void> {
    await this.snapshot(snapshot).click();
    const label = action === 'Restore' ? `Restore ${this.box} to this snapshot` : action;
    await this.page.getByRole('menuitem', { name: label }).click();
  }

  dialog(title: string | RegExp): Locator {
    return this.page.getByRole('dialog', { name: title });
  }
}
