import type { Locator, Page } from 'playwright-core';

/** The Bases page: the table, create, the tar import. */
export class BasesPage {
  readonly table: Locator;
  readonly createButton: Locator;
  readonly importName: Locator;
  readonly dropZone: Locator;
  readonly chooseFile: Locator;
  readonly uploadProgress: Locator;
  readonly alert: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Bases' });
    this.createButton = page.getByRole('button', { name: 'Create base', exact: true });
    this.importName = page.getByRole('textbox', { name: 'Name of the imported base' });
    this.dropZone = page.getByRole('region', { name: 'Drop a root filesystem tar here' });
    this.chooseFile = page.getByRole('button', { name: 'Choose a tar file' });
    this.uploadProgress = page.getByRole('progressbar', { name: 'Upload progress' });
    this.alert = page.getByRole('main').getByRole('alert');
  }

  row(name: string): Locator {
    return this.table.getByRole('row').filter({ has: this.page.getByRole('rowheader', { name, exact: true }) });
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
