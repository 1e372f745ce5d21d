import type { Locator, Page } from 'playwright-core';
import { ResourceListPage } from './page-object';

/** The Bases page: the table, create, the tar import. */
export class BasesPage extends ResourceListPage {
  readonly importName = this.page.getByRole('textbox', { name: 'Name of the imported base' });
  readonly dropZone = this.page.getByRole('region', { name: 'Drop a root filesystem tar here' });
  readonly chooseFile = this.page.getByRole('button', { name: 'Choose a tar file' });
  readonly uploadProgress = this.page.getByRole('progressbar', { name: 'Upload progress' });
  readonly alert = this.page.getByRole('main').getByRole('alert');

  constructor(page: Page) {
    super(page, 'Bases', 'Create base');
  }

  readonly buildButton = this.page.getByRole('button', { name: 'New base from Dockerfile' });

  /** The "New base from Dockerfile" dialog and its parts. */
  buildDialog() {
    const dialog = this.page.getByRole('dialog', { name: 'New base from Dockerfile' });
    return {
      dialog,
      name: dialog.getByRole('textbox', { name: 'Name' }),
      dockerfile: dialog.getByRole('textbox', { name: 'Dockerfile' }),
      buildArgs: dialog.getByRole('textbox', { name: 'Build arguments' }),
      contextFolder: dialog.getByLabel('Context folder'),
      build: dialog.getByRole('button', { name: 'Build base', exact: true }),
      cancel: dialog.getByRole('button', { name: 'Cancel build', exact: true }),
      close: dialog.getByRole('button', { name: 'Close', exact: true }).last(),
      status: dialog.getByRole('status', { name: 'Build status' }),
      log: dialog.getByRole('log', { name: 'Build log' }),
      alert: dialog.getByRole('alert'),
    };
  }

  editButton(name: string): Locator {
    return this.row(name).getByRole('button', { name: `Edit base ${name}`, exact: true });
  }

  /** The "Edit base NAME" dialog: its warm count. */
  editDialog(name: string) {
    const dialog = this.page.getByRole('dialog', { name: `Edit base ${name}` });
    return {
      dialog,
      warm: dialog.getByRole('textbox', { name: 'Warm containers' }),
      save: dialog.getByRole('button', { name: 'Save', exact: true }),
      alert: dialog.getByRole('alert'),
    };
  }

  deleteButton(name: string): Locator {
    return this.row(name).getByRole('button', { name: `Delete base ${name}`, exact: true });
  }

  /** Drops a file on the drop zone, as a drag from the desktop would. */
  async dropFile(bytes: Buffer, fileName: string): Promise<void> {
    const transfer = await this.page.evaluateHandle(
      ({ b64, name }) => {
        const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([data], name, { type: 'application/x-tar' }));
        return dt;
      },
      { b64: bytes.toString('base64'), name: fileName },
    );
    await this.dropZone.dispatchEvent('dragover', { dataTransfer: transfer });
    await this.dropZone.dispatchEvent('drop', { dataTransfer: transfer });
  }
}
