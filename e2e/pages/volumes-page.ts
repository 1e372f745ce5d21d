import type { Locator, Page } from 'playwright-core';
import { ResourceListPage } from './page-object';

/** The Volumes page: the table, the create dialog, one volume's drawer (snapshots, backups). */
export class VolumesPage extends ResourceListPage {
  readonly createDialog = this.page.getByRole('dialog', { name: 'Create a volume' });
  readonly drawer = this.page.getByRole('dialog', { name: /^Volume / });
  readonly alert = this.page.getByRole('alert');

  constructor(page: Page) {
    super(page, 'Volumes', 'Create volume');
  }

  heading(project: string): Locator {
    return this.page.getByRole('heading', { level: 2, name: `Volumes in ${project}`, exact: true });
  }

  field(label: 'Name' | 'Size (GB)' | 'Backups kept'): Locator {
    return this.createDialog.getByRole('textbox', { name: label });
  }

  /** Opens the volume's drawer from its name in the table. */
  async open(name: string): Promise<void> {
    await this.row(name).getByRole('button', { name, exact: true }).click();
    await this.drawer.waitFor();
  }

  deleteButton(name: string): Locator {
    return this.row(name).getByRole('button', { name: `Delete volume ${name}`, exact: true });
  }

  drawerButton(label: 'Take snapshot' | 'Back up now'): Locator {
    return this.drawer.getByRole('button', { name: label, exact: true });
  }

  snapshots(volume: string): Locator {
    return this.drawer.getByRole('table', { name: `Snapshots of ${volume}` });
  }

  backups(volume: string): Locator {
    return this.drawer.getByRole('table', { name: `Backups of ${volume}` });
  }

  /** A row of a drawer table, by the snapshot's or backup's id (its row header's name). */
  item(table: Locator, id: string): Locator {
    return this.rowOf(table, id);
  }

  sha256(id: string): Locator {
    return this.drawer.getByLabel(`sha256 of backup ${id}`, { exact: true });
  }
}
