//! Text of glyphs set in the Symbol font. A symbolic TrueType font without a `ToUnicode` map
//! (the `Symbol` font of office suites) is read by pdfium through its (3,0) `cmap`, which puts
//! each glyph at `U+F000` plus its code: `µg/ml` arrives as `U+F06D g/ml`, `±` as `U+F0B1`.
//! Those codes are Adobe's Symbol encoding, a public table; [`symbol_char`] reads them back.

/// Whether a font (its base name) is the Symbol font (`Symbol`, `SymbolMT`, `Symbol,Bold`).
pub fn is_symbol_font(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit('+').next().unwrap_or(&lower);
    base.starts_with("symbol")
}

/// The character a private-use code `U+F020`–`U+F0FF` stands for in the Symbol encoding, or
/// `None` for codes the encoding leaves empty (and for anything outside that range).
pub fn symbol_char(c: char) -> Option<char> {
    let code = (c as u32).checked_sub(0xF000)?;
    if !(0x20..=0xFF).contains(&code) {
        return None;
    }
    let code = code as u8;
    let mapped = match code {
        // Greek letters, upper and lower case, in the encoding's Latin positions.
        b'A'..=b'Z' => UPPER[(code - b'A') as usize],
        b'a'..=b'z' => LOWER[(code - b'a') as usize],
        b'0'..=b'9' => code as char,
        _ => match code {
            0x20 => ' ',
            0x21 => '!',
            0x22 => '∀',
            0x23 => '#',
            0x24 => '∃',
            0x25 => '%',
            0x26 => '&',
            0x27 => '∋',
            0x28 => '(',
            0x29 => ')',
            0x2A => '∗',
            0x2B => '+',
            0x2C => ',',
            0x2D => '−',
            0x2E => '.',
            0x2F => '/',
            0x3A => ':',
            0x3B => ';',
            0x3C => '<',
            0x3D => '=',
            0x3E => '>',
            0x3F => '?',
            0x40 => '≅',
            0x5B => '[',
            0x5C => '∴',
            0x5D => ']',
            0x5E => '⊥',
            0x5F => '_',
            0x7B => '{',
            0x7C => '|',
            0x7D => '}',
            0x7E => '∼',
            0xA1 => 'ϒ',
            0xA2 => '′',
            0xA3 => '≤',
            0xA4 => '⁄',
            0xA5 => '∞',
            0xA6 => 'ƒ',
            0xA7 => '♣',
            0xA8 => '♦',
            0xA9 => '♥',
            0xAA => '♠',
            0xAB => '↔',
            0xAC => '←',
            0xAD => '↑',
            0xAE => '→',
            0xAF => '↓',
            0xB0 => '°',
            0xB1 => '±',
            0xB2 => '″',
            0xB3 => '≥',
            0xB4 => '×',
            0xB5 => '∝',
            0xB6 => '∂',
            0xB7 => '•',
            0xB8 => '÷',
            0xB9 => '≠',
            0xBA => '≡',
            0xBB => '≈',
            0xBC => '…',
            0xC0 => 'ℵ',
            0xC1 => 'ℑ',
            0xC2 => 'ℜ',
            0xC3 => '℘',
            0xC4 => '⊗',
            0xC5 => '⊕',
            0xC6 => '∅',
            0xC7 => '∩',
            0xC8 => '∪',
            0xC9 => '⊃',
            0xCA => '⊇',
            0xCB => '⊄',
            0xCC => '⊂',
            0xCD => '⊆',
            0xCE => '∈',
            0xCF => '∉',
            0xD0 => '∠',
            0xD1 => '∇',
            0xD5 => '∏',
            0xD6 => '√',
            0xD7 => '⋅',
            0xD8 => '¬',
            0xD9 => '∧',
            0xDA => '∨',
            0xDB => '⇔',
            0xDC => '⇐',
            0xDD => '⇑',
            0xDE => '⇒',
            0xDF => '⇓',
            0xE0 => '◊',
            0xE1 => '〈',
            0xE5 => '∑',
            0xF1 => '〉',
            0xF2 => '∫',
            _ => return None,
        },
    };
    Some(mapped)
}

/// [`symbol_char`] of a character code pdfium could not map (the raw code, `0x20`–`0xFF`) or
/// of its private-use form (`U+F020`–`U+F0FF`).
pub fn symbol_code(code: u32) -> Option<char> {
    let low = match code {
        0..=0xFF => code,
        0xF020..=0xF0FF => code - 0xF000,
        _ => return None,
    };
    symbol_char(char::from_u32(0xF000 | low)?)
}

const UPPER: [char; 26] = [
    'Α', 'Β', 'Χ', 'Δ', 'Ε', 'Φ', 'Γ', 'Η', 'Ι', 'ϑ', 'Κ', 'Λ', 'Μ', 'Ν', 'Ο', 'Π', 'Θ', 'Ρ', 'Σ',
    'Τ', 'Υ', 'ς', 'Ω', 'Ξ', 'Ψ', 'Ζ',
];

const LOWER: [char; 26] = [
    'α', 'β', 'χ', 'δ', 'ε', 'φ', 'γ', 'η', 'ι', 'ϕ', 'κ', 'λ', 'μ', 'ν', 'ο', 'π', 'θ', 'ρ', 'σ',
    'τ', 'υ', 'ϖ', 'ω', 'ξ', 'ψ', 'ζ',
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_codes_read_as_their_characters() {
        assert_eq!(symbol_char('\u{F06D}'), Some('μ'));
        assert_eq!(symbol_char('\u{F061}'), Some('α'));
        assert_eq!(symbol_char('\u{F044}'), Some('Δ'));
        assert_eq!(symbol_char('\u{F0B1}'), Some('±'));
        assert_eq!(symbol_char('\u{F0B0}'), Some('°'));
        assert_eq!(symbol_char('\u{F0A3}'), Some('≤'));
        assert_eq!(symbol_char('\u{F02D}'), Some('−'));
        assert_eq!(symbol_char('\u{F035}'), Some('5'));
        // Empty positions and codes outside the block stay unmapped.
        assert_eq!(symbol_char('\u{F080}'), None);
        assert_eq!(symbol_char('\u{E09D}'), None);
        assert_eq!(symbol_char('m'), None);
        // Raw codes pdfium left unmapped read the same.
        assert_eq!(symbol_code(0x6D), Some('μ'));
        assert_eq!(symbol_code(0xF0B1), Some('±'));
        assert_eq!(symbol_code(0x1234), None);
    }

    #[test]
    fn the_symbol_font_is_known_by_its_base_name() {
        assert!(is_symbol_font("Symbol"));
        assert!(is_symbol_font("SymbolMT"));
        assert!(is_symbol_font("ABCDEF+Symbol,Bold"));
        assert!(!is_symbol_font("TimesNewRomanPSMT"));
        assert!(!is_symbol_font("Wingdings-Regular"));
    }
}
