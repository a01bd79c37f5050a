//! What a request asked of the TEI writers ([`TeiOptions`], echoed in the TEI) and the
//! processing-time stamp they write.

/// What the request asked for, echoed in the TEI and honoured by the writer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TeiOptions {
    pub include_raw_affiliations: bool,
    pub include_raw_copyrights: bool,
    /// Add `<note type="raw_reference">` to the article's references.
    pub include_raw_citations: bool,
    pub start_page: i64,
    pub end_page: i64,
    pub consolidate_header: u8,
    /// What was done for citations and funders (written in the parameters label).
    pub consolidate_citations: u8,
    pub consolidate_funders: u8,
    /// Which consolidation source answered, or why none did; written after the parameters
    /// (`, consolidation=embedded`) when consolidation was asked for.
    pub consolidation: Option<String>,
    /// Element names that get `coords` (`teiCoordinates`, grobid-service §5.4); any name
    /// adds the `facsimile`.
    pub coordinates: std::collections::BTreeSet<String>,
    /// Wrap paragraph-like content in `<s>` (`segmentSentences`), cut by `sentence_segmenter`.
    pub segment_sentences: bool,
    pub sentence_segmenter: crate::sentence::Segmenter,
    /// `generateIDs`: `xml:id` on heads, paragraphs, sentences, captions and notes' paragraphs.
    pub generate_ids: bool,
    /// `includeDiscardedText`: the text no model kept, as `fileDesc/notesStmt/note`.
    pub include_discarded_text: bool,
    /// Application version written in `encodingDesc`.
    pub version: String,
    /// Processing time, `yyyy-MM-ddTHH:mm+0000`.
    pub when: String,
}

/// The current UTC time as GROBID writes it (`2025-12-02T13:58+0000`).
pub fn now_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}+0000",
        rem / 3600,
        (rem % 3600) / 60
    )
}
