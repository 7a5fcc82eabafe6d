import type { VatCategory } from './categories';

/**
 * The CEF VATEX code list: the coded reasons a VAT breakdown gives for charging no VAT (BT-121),
 * as the EN 16931 validation artefacts (release 1.3.16, BR-CL-22) accept them, with the names the list
 * gives them. `category` is the one VAT category each code goes with: the list says so for its scheme
 * codes ("Only use with VAT category code AE/E/G/K/O": VATEX-EU-AE, -D, -F, -G, -I, -IC, -J, -O); the
 * codes citing an article name an exemption, category E, except VATEX-FR-AE (article 283-2 of the French
 * tax code: the buyer is liable, reverse charge).
 */
const VATEX_LIST: readonly (readonly [code: string, name: string, category: VatCategory])[] = [
  ['VATEX-EU-79-C', 'Exempt based on article 79, point c of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132', 'Exempt based on article 132 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1A', 'Exempt based on article 132, section 1 (a) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1B', 'Exempt based on article 132, section 1 (b) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1C', 'Exempt based on article 132, section 1 (c) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1D', 'Exempt based on article 132, section 1 (d) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1E', 'Exempt based on article 132, section 1 (e) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1F', 'Exempt based on article 132, section 1 (f) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1G', 'Exempt based on article 132, section 1 (g) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1H', 'Exempt based on article 132, section 1 (h) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1I', 'Exempt based on article 132, section 1 (i) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1J', 'Exempt based on article 132, section 1 (j) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1K', 'Exempt based on article 132, section 1 (k) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1L', 'Exempt based on article 132, section 1 (l) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1M', 'Exempt based on article 132, section 1 (m) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1N', 'Exempt based on article 132, section 1 (n) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1O', 'Exempt based on article 132, section 1 (o) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1P', 'Exempt based on article 132, section 1 (p) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-132-1Q', 'Exempt based on article 132, section 1 (q) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-135-1', 'Exempt based on article 135, section 1 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143', 'Exempt based on article 143 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1A', 'Exempt based on article 143, section 1 (a) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1B', 'Exempt based on article 143, section 1 (b) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1C', 'Exempt based on article 143, section 1 (c) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1D', 'Exempt based on article 143, section 1 (d) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1E', 'Exempt based on article 143, section 1 (e) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1F', 'Exempt based on article 143, section 1 (f) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1FA', 'Exempt based on article 143, section 1 (fa) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1G', 'Exempt based on article 143, section 1 (g) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1H', 'Exempt based on article 143, section 1 (h) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1I', 'Exempt based on article 143, section 1 (i) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1J', 'Exempt based on article 143, section 1 (j) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1K', 'Exempt based on article 143, section 1 (k) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-143-1L', 'Exempt based on article 143, section 1 (l) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-144', 'Exempt based on article 144 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-146-1E', 'Exempt based on article 146 section 1 (e) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148', 'Exempt based on article 148 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-A', 'Exempt based on article 148, section (a) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-B', 'Exempt based on article 148, section (b) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-C', 'Exempt based on article 148, section (c) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-D', 'Exempt based on article 148, section (d) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-E', 'Exempt based on article 148, section (e) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-F', 'Exempt based on article 148, section (f) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-148-G', 'Exempt based on article 148, section (g) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151', 'Exempt based on article 151 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151-1A', 'Exempt based on article 151, section 1 (a) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151-1AA', 'Exempt based on article 151, section 1 (aa) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151-1B', 'Exempt based on article 151, section 1 (b) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151-1C', 'Exempt based on article 151, section 1 (c) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151-1D', 'Exempt based on article 151, section 1 (d) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-151-1E', 'Exempt based on article 151, section 1 (e) of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-153', 'Exempt based on article 153 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-159', 'Exempt based on article 159 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-309', 'Exempt based on article 309 of Council Directive 2006/112/EC', 'E'],
  ['VATEX-EU-AE', 'Reverse charge', 'AE'],
  ['VATEX-EU-D', 'Travel agents VAT scheme', 'E'],
  ['VATEX-EU-F', 'Second hand goods VAT scheme', 'E'],
  ['VATEX-EU-G', 'Export outside the EU', 'G'],
  ['VATEX-EU-I', 'Works of art VAT scheme', 'E'],
  ['VATEX-EU-IC', 'Intra-community supply', 'K'],
  ['VATEX-EU-J', 'Collectors items and antiques VAT scheme', 'E'],
  ['VATEX-EU-O', 'Not subject to VAT', 'O'],
  ['VATEX-FR-FRANCHISE', 'France domestic VAT franchise in base', 'E'],
  ['VATEX-FR-CNWVAT', 'France domestic Credit Notes without VAT, due to supplier forfeit of VAT for discount', 'E'],
  ['VATEX-FR-CGI261-1', 'Exempt based on 1 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261-2', 'Exempt based on 2 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261-3', 'Exempt based on 3 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261-4', 'Exempt based on 4 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261-5', 'Exempt based on 5 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261-7', 'Exempt based on 7 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261-8', 'Exempt based on 8 of article 261 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261A', 'Exempt based on article 261 A of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261B', 'Exempt based on article 261 B of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261C-1', 'Exempt based on 1° of article 261 C of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261C-2', 'Exempt based on 2° of article 261 C of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261C-3', 'Exempt based on 3° of article 261 C of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261D-1', 'Exempt based on 1° of article 261 D of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261D-1BIS', 'Exempt based on 1°bis of article 261 D of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261D-2', 'Exempt based on 2° of article 261 D of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261D-3', 'Exempt based on 3° of article 261 D of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261D-4', 'Exempt based on 4° of article 261 D of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261E-1', 'Exempt based on 1° of article 261 E of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI261E-2', 'Exempt based on 2° of article 261 E of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI277A', 'Exempt based on article 277 A of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI275', 'Exempt based on article 275 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-298SEXDECIESA', 'Exempt based on article 298 sexdecies A of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-CGI295', 'Exempt based on article 295 of the Code Général des Impôts (CGI ; General tax code)', 'E'],
  ['VATEX-FR-AE', 'Exempt based on 2 of article 283 of the Code Général des Impôts (CGI ; General tax code)', 'AE'],
];

export interface VatexCode {
  code: string;
  name: string;
  category: VatCategory;
}

export const VATEX_CODES: readonly VatexCode[] = VATEX_LIST.map(([code, name, category]) => ({ code, name, category }));

const byCode = new Map(VATEX_CODES.map((v) => [v.code, v]));

/** The VATEX entry of a code, read as the validators read it: trimmed and in any case. */
export function vatexCode(code: string): VatexCode | undefined {
  return byCode.get(code.trim().toUpperCase());
}
