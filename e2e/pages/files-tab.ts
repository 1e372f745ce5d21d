import type { Locator } from 'playwright-core';
import { PageObject } from './page-object';

/** The Files tab of a box: the folder list, breadcrumbs, uploads, the editor and the changes view. */
export class FilesTab extends PageObject {
  tab(): Locator {
    return this.page.getByRole('tab', { name: 'Files', exact: true });
  }

  /** The list of one folder. */
  folder(dir: string): Locator {
    return this.page.getByRole('table', { name: `Files in ${dir}`, exact: true });
  }

  /** The button that opens an entry of the folder shown. */
  entry(name: string): Locator {
    return this.page.getByRole('table', { name: /^Files in / }).getByRole('button', { name, exact: true });
  }

  /** Opens a folder of the folder shown with a click, and waits for its list. */
  async openFolder(name: string, dir: string): Promise<void> {
    await this.entry(name).click();
    await this.folder(dir).waitFor();
  }

  /** The row of an entry of the folder shown. */
  row(name: string): Locator {
    return this.page
      .getByRole('table', { name: /^Files in / })
      .getByRole('row')
      .filter({ has: this.page.getByRole('button', { name, exact: true }) });
  }

  /** A breadcrumb: `/` or a folder's absolute path. */
  crumb(path: string): Locator {
    return this.page
      .getByRole('navigation', { name: 'Path in the box' })
      .getByRole('button', { name: path === '/' ? 'Root folder /' : `Folder ${path}`, exact: true });
  }

  dropZone(dir: string): Locator {
    return this.page.getByRole('region', { name: `Drop files here to upload them to ${dir}` });
  }

  /** Drops files onto the folder list, the way a file manager would (a DataTransfer built in the page). */
  async drop(dir: string, files: { name: string; content: string }[]): Promise<void> {
    const transfer = await this.page.evaluateHandle((list) => {
      const dt = new DataTransfer();
      for (const f of list) dt.items.add(new File([f.content], f.name, { type: 'text/plain' }));
      return dt;
    }, files);
    await this.dropZone(dir).dispatchEvent('dragover', { dataTransfer: transfer });
    await this.dropZone(dir).dispatchEvent('drop', { dataTransfer: transfer });
    await transfer.dispose();
  }

  /** "uploaded · 12 B of 12 B" and the like. */
  uploadStatus(path: string): Locator {
    return this.page
      .getByRole('region', { name: 'Uploads' })
      .getByRole('status', { name: `Upload of ${path}`, exact: true });
  }

  editor(path: string): Locator {
    return this.page.getByRole('textbox', { name: `Contents of ${path}`, exact: true });
  }

  button(
    label: 'Save' | 'Download' | 'Back to the folder' | 'New folder' | 'Upload files' | 'Up one folder' | 'Refresh',
  ): Locator {
    return this.page.getByRole('tabpanel').getByRole('button', { name: label, exact: true });
  }

  rowAction(action: 'Download' | 'Delete', name: string): Locator {
    return this.page
      .getByRole('table', { name: /^Files in / })
      .getByRole('button', { name: `${action} ${name}`, exact: true });
  }

  unsavedBadge(): Locator {
    return this.page.getByRole('status').filter({ hasText: 'Unsaved changes' });
  }

  async showView(label: 'Browse' | 'Changed since base'): Promise<void> {
    await this.page.getByRole('radiogroup', { name: 'Files view' }).getByText(label, { exact: true }).click();
  }

  changes(): Locator {
    return this.page.getByRole('table', { name: 'Changed since base', exact: true });
  }

  /** The row of one changed path. */
  change(path: string): Locator {
    return this.changes().getByRole('row').filter({ hasText: path });
  }
}
