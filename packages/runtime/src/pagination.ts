import { DEFAULT_PAGE_SIZE, type Pagination } from '@bo/contracts';

export interface PageRequest {
  page_number?: number;
  page_size?: number;
}

export function pageWindow(req: PageRequest): { page: number; size: number; offset: number } {
  const page = req.page_number ?? 1;
  const size = req.page_size ?? DEFAULT_PAGE_SIZE;
  return { page, size, offset: (page - 1) * size };
}

export function paginationOf(req: PageRequest, totalItems: number): Pagination {
  const { page, size } = pageWindow(req);
  const totalPages = Math.ceil(totalItems / size);
  return {
    page_number: page,
    page_size: size,
    total_items: totalItems,
    total_pages: totalPages,
    has_next: page < totalPages,
    has_previous: page > 1,
  };
}

/** Escapes `%`, `_` and `\` so user text matches literally inside a LIKE pattern (ESCAPE '\'). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
