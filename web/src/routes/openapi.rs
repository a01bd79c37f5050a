/*!
`GET /api/openapi.json`: an OpenAPI 3.0 description of the routes the running configuration
serves, built from the table below (so it is one list to keep up to date; a test checks that
every route path registered in `routes/` appears here). The training routes are described only
with `training.enabled`, the test-only routes (tagged `test-only`, apart from the service's)
only with `debug.test_routes` (`/debug/panic` with `debug.allow_panic_route`). Every parameter
GROBID 0.9 defines for a route is listed, with what Quire does with it. Error responses share
one shape: `text/plain` `[CODE] message`, or `{"code", "message", "status"}` when `Accept`
prefers JSON. `tests/compat/openapi_check` validates the served document with
openapi-spec-validator.
*/

use actix_web::{web, HttpResponse};
use serde_json::{json, Map, Value};

use crate::app::State;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/openapi.json", web::get().to(openapi));
}

async fn openapi(state: State) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(document(&Served::from_config(&state.config)).to_string())
}

/// Which optional route families a configuration serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// `training.enabled`.
    pub training: bool,
    /// `debug.test_routes`.
    pub test_routes: bool,
    /// `debug.allow_panic_route`.
    pub panic_route: bool,
}

impl Served {
    pub fn from_config(c: &crate::config::Config) -> Served {
        Served {
            training: c.training.enabled,
            test_routes: c.debug.test_routes,
            panic_route: c.debug.allow_panic_route,
        }
    }

    /// Every family (the tests' view of the whole table).
    pub fn all() -> Served {
        Served {
            training: true,
            test_routes: true,
            panic_route: true,
        }
    }

    fn serves(&self, gate: Gate) -> bool {
        match gate {
            Gate::Always => true,
            Gate::Training => self.training,
            Gate::TestRoutes => self.test_routes,
            Gate::PanicRoute => self.panic_route,
        }
    }
}

/// The configuration switch a route depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    Always,
    Training,
    TestRoutes,
    PanicRoute,
}

/// How a parameter travels and what it holds.
#[derive(Clone, Copy)]
enum Kind {
    /// A PDF file part (multipart only).
    File,
    Text,
    /// A text field that may be repeated.
    Texts,
    Int(i64, i64),
    /// GROBID's 0/1 booleans.
    Flag,
}

#[derive(Clone, Copy)]
struct Param {
    name: &'static str,
    kind: Kind,
    required: bool,
    doc: &'static str,
}

const fn p(name: &'static str, kind: Kind, required: bool, doc: &'static str) -> Param {
    Param {
        name,
        kind,
        required,
        doc,
    }
}

/// In the body (form or multipart) of a POST/PUT, in the query string of a GET.
struct Op {
    path: &'static str,
    methods: &'static [&'static str],
    summary: &'static str,
    params: &'static [Param],
    /// Media types of the 200 answer.
    answers: &'static [&'static str],
    /// Statuses besides 200 and the errors every route can give.
    also: &'static [u16],
    gate: Gate,
}

const XML: &str = "application/xml";
const BIBTEX: &str = "application/x-bibtex";
const JSON: &str = "application/json";
const TEXT: &str = "text/plain";
const HTML: &str = "text/html";

const PDF_RANGE: [Param; 2] = [
    p(
        "start",
        Kind::Int(-1, i64::MAX),
        false,
        "first page (from 1; -1 = first)",
    ),
    p(
        "end",
        Kind::Int(-1, i64::MAX),
        false,
        "last page (-1 = last)",
    ),
];
const INPUT: Param = p("input", Kind::File, true, "the PDF");
const CONS_HEADER: Param = p(
    "consolidateHeader",
    Kind::Int(0, 3),
    false,
    "look the header up in the consolidation index",
);
const CONS_CITATIONS: Param = p(
    "consolidateCitations",
    Kind::Int(0, 2),
    false,
    "look the references up in the consolidation index (2: add the DOI only)",
);
const RAW_CITATIONS: Param = p(
    "includeRawCitations",
    Kind::Flag,
    false,
    "keep the raw strings",
);

const RAW_AFFILIATIONS: Param = p(
    "includeRawAffiliations",
    Kind::Flag,
    false,
    "keep raw affiliation strings",
);
const RAW_COPYRIGHTS: Param = p(
    "includeRawCopyrights",
    Kind::Flag,
    false,
    "keep the printed licence or copyright statement (availability/p type=raw)",
);

const DISCARDED: Param = p(
    "includeDiscardedText",
    Kind::Flag,
    false,
    "GROBID 0.8+: also write the text the models discarded",
);

const FULLTEXT_PARAMS: [Param; 15] = [
    INPUT,
    CONS_HEADER,
    CONS_CITATIONS,
    p(
        "consolidateFunders",
        Kind::Int(0, 2),
        false,
        "look the funders up in the Funder Registry of the consolidation index (1: name and DOI, 2: DOI only)",
    ),
    RAW_CITATIONS,
    RAW_AFFILIATIONS,
    RAW_COPYRIGHTS,
    p(
        "teiCoordinates",
        Kind::Texts,
        false,
        "element names that get PDF coordinates",
    ),
    p(
        "segmentSentences",
        Kind::Flag,
        false,
        "wrap sentences in <s>",
    ),
    p("generateIDs", Kind::Flag, false, "give elements xml:id"),
    PDF_RANGE[0],
    PDF_RANGE[1],
    p(
        "flavor",
        Kind::Text,
        false,
        "blank, article/light or article/light-ref",
    ),
    p(
        "debugMode",
        Kind::Text,
        false,
        "answer a dump of a stage instead of TEI",
    ),
    p("models", Kind::Text, false, "models the debug dump shows"),
];
const FULLTEXT_TEI_PARAMS: [Param; 16] = with(FULLTEXT_PARAMS, DISCARDED);
const HEADER_PARAMS: [Param; 7] = [
    INPUT,
    CONS_HEADER,
    RAW_AFFILIATIONS,
    RAW_COPYRIGHTS,
    DISCARDED,
    PDF_RANGE[0],
    PDF_RANGE[1],
];

const fn op(
    path: &'static str,
    methods: &'static [&'static str],
    summary: &'static str,
    params: &'static [Param],
    answers: &'static [&'static str],
    also: &'static [u16],
) -> Op {
    Op {
        path,
        methods,
        summary,
        params,
        answers,
        also,
        gate: Gate::Always,
    }
}

/// A training route: served with `training.enabled` (404 otherwise).
const fn training_op(
    path: &'static str,
    methods: &'static [&'static str],
    summary: &'static str,
    params: &'static [Param],
    answers: &'static [&'static str],
    also: &'static [u16],
) -> Op {
    Op {
        gate: Gate::Training,
        ..op(path, methods, summary, params, answers, also)
    }
}

/// `a` followed by `extra`.
const fn with<const N: usize, const M: usize>(a: [Param; N], extra: Param) -> [Param; M] {
    let mut out = [extra; M];
    let mut i = 0;
    while i < N {
        out[i] = a[i];
        i += 1;
    }
    out
}

/// A route served only with `debug.test_routes` (404 otherwise).
const fn test_op(
    path: &'static str,
    methods: &'static [&'static str],
    summary: &'static str,
    params: &'static [Param],
    answers: &'static [&'static str],
) -> Op {
    Op {
        gate: Gate::TestRoutes,
        also: &[404],
        ..op(path, methods, summary, params, answers, &[])
    }
}

const OPS: &[Op] = &[
    op(
        "/api/version",
        &["get"],
        "Version and build revision",
        &[],
        &[JSON],
        &[],
    ),
    op(
        "/api/isalive",
        &["get"],
        "true once initialized with a usable model (503 false otherwise)",
        &[],
        &[TEXT],
        &[503],
    ),
    op(
        "/api/health",
        &["get"],
        "Readiness: pool, models and checks (503 when not ready)",
        &[],
        &[JSON],
        &[503],
    ),
    op(
        "/api/openapi.json",
        &["get"],
        "This document",
        &[],
        &[JSON],
        &[],
    ),
    op("/", &["get"], "The browser console", &[], &[HTML], &[]),
    op(
        "/console/{file}",
        &["get"],
        "A file of the browser console",
        &[],
        &["*/*"],
        &[404],
    ),
    op(
        "/api/processHeaderDocument",
        &["post", "put"],
        "TEI header of a PDF (BibTeX with Accept: application/x-bibtex); with xml:lang, licence, \
         ORCID iDs and back-matter statements (docs/metadata.md)",
        &HEADER_PARAMS,
        &[XML, BIBTEX],
        &[204],
    ),
    op(
        "/api/processReferences",
        &["post", "put"],
        "The bibliography of a PDF as TEI listBibl (or BibTeX)",
        &[INPUT, CONS_CITATIONS, RAW_CITATIONS],
        &[XML, BIBTEX],
        &[204],
    ),
    op(
        "/api/processFulltextDocument",
        &["post", "put"],
        "The whole article as TEI, with xml:lang, licence, ORCID iDs and back-matter statements \
         (conflict, contribution, ethics; docs/metadata.md)",
        &FULLTEXT_TEI_PARAMS,
        &[XML, TEXT],
        &[204],
    ),
    op(
        "/api/processFulltextAssetDocument",
        &["post", "put"],
        "A ZIP of the TEI and one PNG per figure bitmap",
        &FULLTEXT_PARAMS,
        &["application/zip"],
        &[204],
    ),
    op(
        "/api/processDate",
        &["post", "put"],
        "A raw date as TEI <date>",
        &[p("date", Kind::Text, true, "the date")],
        &[XML],
        &[204],
    ),
    op(
        "/api/processHeaderNames",
        &["post", "put"],
        "Author names of a header as TEI <persName> list",
        &[p("names", Kind::Text, true, "the names")],
        &[XML],
        &[204],
    ),
    op(
        "/api/processCitationNames",
        &["post", "put"],
        "Author names of a citation as TEI <persName> list",
        &[p("names", Kind::Text, true, "the names")],
        &[XML],
        &[204],
    ),
    op(
        "/api/processAffiliations",
        &["post", "put"],
        "A raw affiliation as TEI <affiliation>",
        &[p("affiliations", Kind::Text, true, "the affiliation")],
        &[XML],
        &[204],
    ),
    op(
        "/api/processCitation",
        &["post", "put"],
        "A raw reference string as TEI <biblStruct> (or BibTeX)",
        &[
            p("citations", Kind::Text, true, "the reference string"),
            CONS_CITATIONS,
            RAW_CITATIONS,
        ],
        &[XML, BIBTEX],
        &[204],
    ),
    op(
        "/api/processCitationList",
        &["post", "put"],
        "Raw reference strings as TEI listBibl (or BibTeX)",
        &[
            p(
                "citations",
                Kind::Texts,
                true,
                "the reference strings (repeated)",
            ),
            CONS_CITATIONS,
            RAW_CITATIONS,
        ],
        &[XML, BIBTEX],
        &[204],
    ),
    op(
        "/api/referenceAnnotations",
        &["post"],
        "JSON boxes of references, callouts, formulas (and figures/tables) in PDF units",
        &[
            INPUT,
            p(
                "consolidateHeader",
                Kind::Int(0, 3),
                false,
                "accepted (GROBID's parameter); the boxes do not depend on it",
            ),
            CONS_CITATIONS,
            RAW_CITATIONS,
            p(
                "includeFiguresTables",
                Kind::Flag,
                false,
                "add figures, tables and their callouts",
            ),
        ],
        &[JSON],
        &[],
    ),
    op(
        "/api/annotatePDF",
        &["post"],
        "The uploaded PDF with link annotations (callout to reference, reference to URL)",
        &[
            INPUT,
            p(
                "consolidateHeader",
                Kind::Int(0, 3),
                false,
                "accepted (GROBID's parameter); the links do not depend on it",
            ),
            CONS_CITATIONS,
            p(
                "includeRawAffiliations",
                Kind::Flag,
                false,
                "accepted (GROBID's parameter); no effect on a PDF",
            ),
            p(
                "includeRawCitations",
                Kind::Flag,
                false,
                "accepted (GROBID's parameter); no effect on a PDF",
            ),
            p(
                "type",
                Kind::Int(0, 2),
                false,
                "GROBID's annotation type; accepted, Quire always links callouts to references and references to their URL or DOI",
            ),
        ],
        &["application/pdf"],
        &[],
    ),
    op(
        "/console/pages",
        &["post"],
        "Console: the PDF's pages rendered by pdfium as base64 PNGs",
        &[
            INPUT,
            p(
                "sizes",
                Kind::Text,
                false,
                "page sizes from referenceAnnotations",
            ),
            p(
                "scale",
                Kind::Text,
                false,
                "pixels per PDF unit (0.25-4; 1.5)",
            ),
        ],
        &[JSON],
        &[],
    ),
    op(
        "/console/info",
        &["get"],
        "Console: which optional endpoints this server has, the admin port",
        &[],
        &[JSON],
        &[],
    ),
    op(
        "/api/processCitationPatentTXT",
        &["post", "put"],
        "Patent and non-patent citations of a patent description (text) as TEI",
        &[
            p("input", Kind::Text, true, "the description text"),
            CONS_CITATIONS,
            RAW_CITATIONS,
        ],
        &[XML],
        &[],
    ),
    op(
        "/api/processCitationPatentST36",
        &["post", "put"],
        "Citations of an ST.36 patent document (XML) as TEI",
        &[
            p("input", Kind::File, true, "the ST.36 XML"),
            CONS_CITATIONS,
            RAW_CITATIONS,
        ],
        &[XML],
        &[],
    ),
    op(
        "/api/processCitationPatentPDF",
        &["post", "put"],
        "Citations of a patent PDF (with a text layer) as TEI",
        &[INPUT, CONS_CITATIONS, RAW_CITATIONS],
        &[XML],
        &[],
    ),
    op(
        "/api/citationPatentAnnotations",
        &["post"],
        "JSON boxes of a patent PDF's citations with viewer and DOI links",
        &[INPUT, CONS_CITATIONS],
        &[JSON],
        &[],
    ),
    training_op(
        "/api/modelTraining",
        &["post"],
        "Start a training (training.enabled; Bearer token when training.token is set)",
        &[
            p("model", Kind::Text, true, "the model name, e.g. citation"),
            p(
                "architecture",
                Kind::Text,
                false,
                "CRF (default) or BiLSTM-CRF; maxIter is then the most epochs",
            ),
            p("type", Kind::Text, false, "full, holdout, split or nfold"),
            p("ratio", Kind::Text, false, "training share for split (0-1)"),
            p("n", Kind::Int(2, 100), false, "folds for nfold"),
            p("incremental", Kind::Flag, false, "refused: no warm start"),
        ],
        &[JSON],
        &[401, 404, 409],
    ),
    training_op(
        "/api/trainingResult",
        &["post"],
        "Progress of a training, then its evaluation and GROBID's report",
        &[p("token", Kind::Text, true, "the token modelTraining gave")],
        &[JSON],
        &[401, 404],
    ),
    training_op(
        "/api/training",
        &["get"],
        "Every training run since start-up",
        &[],
        &[JSON],
        &[401, 404],
    ),
    training_op(
        "/api/training/{token}",
        &["delete"],
        "Cancel a training (its process is killed; 409 once it is installing its model)",
        &[],
        &[JSON],
        &[400, 401, 404, 409],
    ),
    training_op(
        "/api/model",
        &["get", "post"],
        "A model's folder as a ZIP (the CRF's, or the BiLSTM-CRF's)",
        &[
            p("model", Kind::Text, true, "the model name"),
            p("architecture", Kind::Text, false, "CRF (default) or BiLSTM-CRF"),
        ],
        &["application/zip"],
        &[401, 404],
    ),
    training_op(
        "/api/allTraining",
        &["get", "post"],
        "GROBID's name for the listing of /api/training",
        &[],
        &[JSON],
        &[401, 404],
    ),
    training_op(
        "/api/killTraining",
        &["post", "delete"],
        "GROBID's name for cancelling a training (DELETE /api/training/{token})",
        &[p("token", Kind::Text, true, "the token modelTraining gave")],
        &[JSON],
        &[400, 401, 404, 409],
    ),
    op(
        "/api/processHeaderFundingDocument",
        &["post"],
        "TEI of the header and the funding and acknowledgement statements of a PDF (no body, no bibliography)",
        &[
            INPUT,
            CONS_HEADER,
            p(
                "consolidateFunders",
                Kind::Int(0, 2),
                false,
                "look the funders up in the Funder Registry of the consolidation index",
            ),
            RAW_AFFILIATIONS,
            RAW_COPYRIGHTS,
            DISCARDED,
        ],
        &[XML],
        &[204],
    ),
    op(
        "/api/processFundingAcknowledgement",
        &["post"],
        "A funding or acknowledgement statement as a TEI <p> with its entities as <rs type>",
        &[
            p("text", Kind::Text, true, "the statement"),
            p("generateIDs", Kind::Flag, false, "give <p> and <s> an xml:id"),
            p("segmentSentences", Kind::Flag, false, "wrap sentences in <s>"),
        ],
        &[XML],
        &[],
    ),
    op(
        "/api/grobid",
        &["get"],
        "A short HTML description of the service (GROBID's route)",
        &[],
        &[HTML],
        &[],
    ),
    op(
        "/api/createTraining",
        &["post"],
        "Training data for the PDF, pre-annotated by the current models: a ZIP laid out as a dataset folder (<model>/corpus/...)",
        &[
            INPUT,
            p(
                "flavor",
                Kind::Text,
                false,
                "article/light or article/light-ref",
            ),
        ],
        &["application/zip"],
        &[204],
    ),
    test_op(
        "/debug/releaseTraining",
        &["get", "post"],
        "Test only: let a training started with hold=1 go on",
        &[p("token", Kind::Text, true, "the held run's token")],
        &[TEXT],
    ),
    op(
        "/api/consolidateTEI",
        &["post", "put"],
        "Quire's own: existing TEI consolidated in place (references rewritten, the header \
         record given its DOI); X-Quire-Consolidation says what was done",
        &[
            p(
                "input",
                Kind::Text,
                true,
                "the TEI document (file part or field)",
            ),
            p(
                "consolidateCitations",
                Kind::Int(0, 2),
                false,
                "1 (default): merge matched records into references; 2: add their DOI",
            ),
            p(
                "consolidateHeader",
                Kind::Int(0, 3),
                false,
                "1 (default) or 2: add the DOI found for the header's record",
            ),
        ],
        &[XML],
        &[],
    ),
    test_op(
        "/debug/sleep",
        &["get", "post"],
        "Test only: hold a processing slot for `ms` milliseconds",
        &[
            p("ms", Kind::Int(0, 60_000), false, "milliseconds"),
            p(
                "pipeline",
                Kind::Flag,
                false,
                "sleep as a cascade, under the request's time limit",
            ),
        ],
        &[TEXT],
    ),
    test_op(
        "/debug/label",
        &["post"],
        "Test only: label feature rows or text with a model",
        &[
            p("model", Kind::Text, true, "the model"),
            p("rows", Kind::Text, false, "feature rows"),
            p("text", Kind::Text, false, "one sequence per line"),
        ],
        &[TEXT],
    ),
    test_op(
        "/debug/ping",
        &["get"],
        "Test only: a model actor answers",
        &[p("model", Kind::Text, true, "the model")],
        &[TEXT],
    ),
    test_op(
        "/debug/layout",
        &["post"],
        "Test only: page, block and token counts of a PDF laid out in a worker",
        &[INPUT, PDF_RANGE[0], PDF_RANGE[1]],
        &[JSON],
    ),
    Op {
        gate: Gate::PanicRoute,
        ..test_op(
            "/debug/panic",
            &["get", "post"],
            "Test only: make a model actor panic",
            &[p("model", Kind::Text, true, "the model")],
            &[TEXT],
        )
    },
];

fn schema(kind: Kind) -> Value {
    match kind {
        Kind::File => json!({"type": "string", "format": "binary"}),
        Kind::Text => json!({"type": "string"}),
        Kind::Texts => json!({"type": "array", "items": {"type": "string"}}),
        Kind::Int(min, max) if max == i64::MAX => json!({"type": "integer", "minimum": min}),
        Kind::Int(min, max) => json!({"type": "integer", "minimum": min, "maximum": max}),
        Kind::Flag => json!({"type": "string", "enum": ["0", "1", "true", "false"]}),
    }
}

/// The request body of a POST/PUT: multipart (always) and form-urlencoded (without files).
fn request_body(params: &[Param]) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    for param in params {
        let mut s = schema(param.kind);
        s["description"] = json!(param.doc);
        props.insert(param.name.to_string(), s);
        if param.required {
            required.push(param.name);
        }
    }
    let mut body = json!({"type": "object", "properties": props});
    // OpenAPI 3.0 (JSON Schema draft 4/5): `required` must not be empty.
    if !required.is_empty() {
        body["required"] = json!(required);
    }
    let mut content = Map::new();
    content.insert("multipart/form-data".into(), json!({"schema": body}));
    if !params.iter().any(|p| matches!(p.kind, Kind::File)) {
        content.insert(
            "application/x-www-form-urlencoded".into(),
            json!({"schema": body}),
        );
    }
    json!({"required": !required.is_empty(), "content": content})
}

fn query_params(params: &[Param]) -> Value {
    params
        .iter()
        .map(|param| {
            json!({
                "name": param.name,
                "in": "query",
                "required": param.required,
                "description": param.doc,
                "schema": schema(param.kind),
            })
        })
        .collect()
}

fn status_text(status: u16) -> &'static str {
    match status {
        204 => "Nothing could be extracted",
        400 => "Missing or invalid parameter (named), malformed body",
        401 => "Training endpoints: missing or wrong bearer token (training.token)",
        404 => "Not found (debug routes: disabled)",
        405 => "Known path, other method",
        408 => "The body did not arrive within limits.body_timeout_s",
        409 => "A training of that model and flavour is running",
        413 => "Body, field, string count or string length over its limit (named)",
        500 => "Processing error with the interface's code",
        503 => "No processing slot (Retry-After), or not ready",
        _ => "",
    }
}

/// The statuses every route of this kind can answer with an error body.
fn operation(op: &Op, method: &str) -> Value {
    let content: Map<String, Value> = op
        .answers
        .iter()
        .map(|m| (m.to_string(), json!({"schema": {}})))
        .collect();
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({"description": "Success", "content": content}),
    );
    let body = op.methods.iter().any(|m| *m != "get");
    let mut errors: Vec<u16> = vec![405, 500];
    if !op.params.is_empty() {
        errors.extend([400, 408, 413]);
    }
    if op.path.starts_with("/api/process") {
        errors.push(503);
    }
    for status in op.also.iter().chain(errors.iter()) {
        let key = status.to_string();
        if responses.contains_key(&key) {
            continue;
        }
        let value = if *status == 204 {
            json!({"description": status_text(204)})
        } else {
            json!({"$ref": format!("#/components/responses/E{status}")})
        };
        responses.insert(key, value);
    }
    let mut out = json!({
        "summary": op.summary,
        "operationId": format!("{method}{}", op.path.replace(['/', '{', '}', '.'], "_")),
        "responses": responses,
    });
    match op.gate {
        Gate::Always => out["tags"] = json!(["service"]),
        Gate::Training => {
            out["description"] =
                json!("Served only with `training.enabled = true`; otherwise 404.");
            out["tags"] = json!(["training"]);
        }
        Gate::TestRoutes => {
            out["description"] =
                json!("Test only: served with `debug.test_routes = true`; otherwise 404.");
            out["tags"] = json!(["test-only"]);
        }
        Gate::PanicRoute => {
            out["description"] =
                json!("Test only: served with `debug.allow_panic_route = true`; otherwise 404.");
            out["tags"] = json!(["test-only"]);
        }
    }
    if !op.params.is_empty() {
        if method == "get" || method == "delete" || !body {
            out["parameters"] = query_params(op.params);
        } else {
            out["requestBody"] = request_body(op.params);
        }
    }
    // Path parameters (`{file}`, `{token}`).
    let in_path: Vec<Value> = op
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    if !in_path.is_empty() {
        out["parameters"] = Value::Array(in_path);
    }
    out
}

/// The document of what `served` serves.
pub fn document(served: &Served) -> Value {
    let mut paths = Map::new();
    let mut tags =
        vec![json!({"name": "service", "description": "GROBID's services and Quire's own"})];
    if served.training {
        tags.push(
            json!({"name": "training", "description": "Training services (`training.enabled`)"}),
        );
    }
    if served.test_routes || served.panic_route {
        tags.push(json!({"name": "test-only", "description": "Routes for the test suite only (`debug.test_routes`), not for clients"}));
    }
    for op in OPS.iter().filter(|op| served.serves(op.gate)) {
        let mut item = Map::new();
        for method in op.methods {
            item.insert(method.to_string(), operation(op, method));
        }
        paths.insert(op.path.to_string(), Value::Object(item));
    }
    let mut responses = Map::new();
    for status in [400u16, 401, 404, 405, 408, 409, 413, 500, 503] {
        responses.insert(
            format!("E{status}"),
            json!({
                "description": status_text(status),
                "content": {
                    "text/plain": {"schema": {"type": "string", "pattern": "^\\[[A-Z_]+\\] "}},
                    "application/json": {"schema": {"$ref": "#/components/schemas/Error"}},
                },
            }),
        );
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "Quire",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "GROBID-compatible service: scholarly PDFs and raw bibliographic strings to TEI XML. \
                            Parameters go in the body, form-urlencoded or multipart; GET routes also answer HEAD. \
                            The admin port (default 8071) serves /ping, /healthcheck, /metrics, \
                            /metrics/prometheus and /heartbeat.",
        },
        "tags": tags,
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["code", "message", "status"],
                    "properties": {
                        "code": {"type": "string", "description": "the interface's code, e.g. BAD_INPUT_DATA, TIMEOUT"},
                        "message": {"type": "string"},
                        "status": {"type": "integer"},
                    },
                },
            },
            "responses": responses,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every quoted route path (`"/api/…"`, `"/debug/…"`, `"/console…"`, `"/"`) in the route
    /// modules' sources.
    fn registered_paths() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/routes");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).expect("routes dir").flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == "openapi.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source");
            for piece in text.split('"').skip(1).step_by(2) {
                let is_route = piece == "/"
                    || ["/api/", "/debug/", "/console"]
                        .iter()
                        .any(|p| piece.starts_with(p));
                // A bare prefix (`"/api/"` in a `trim_start_matches`) is no route.
                let prefix_only = piece.len() > 1 && piece.ends_with('/');
                if is_route && !piece.contains(' ') && !prefix_only {
                    out.push(piece.to_string());
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn every_registered_route_is_in_the_document() {
        let doc = document(&Served::all());
        let paths = registered_paths();
        assert!(paths.len() >= 20, "{paths:?}");
        for path in &paths {
            assert!(
                doc["paths"][path.as_str()].is_object(),
                "{path} is served but not in /api/openapi.json"
            );
        }
    }

    #[test]
    fn every_operation_has_responses_and_errors_refer_to_the_shared_shape() {
        let doc = document(&Served::all());
        let text = doc.to_string();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("item") {
                let responses = op["responses"].as_object().expect("responses");
                assert!(responses.contains_key("200"), "{method} {path}");
                assert!(responses.contains_key("500"), "{method} {path}");
            }
        }
        for status in [400, 404, 405, 408, 413, 500, 503] {
            let r = format!("#/components/responses/E{status}");
            if text.contains(&r) {
                assert!(doc["components"]["responses"][format!("E{status}")].is_object());
            }
        }
        let date = &doc["paths"]["/api/processDate"]["post"]["requestBody"]["content"]
            ["application/x-www-form-urlencoded"]["schema"];
        assert_eq!(date["required"][0], "date", "{date}");
        let header = &doc["paths"]["/api/processHeaderDocument"]["put"]["requestBody"]["content"];
        assert_eq!(
            header["multipart/form-data"]["schema"]["properties"]["input"]["format"],
            "binary"
        );
        assert!(header.get("application/x-www-form-urlencoded").is_none());
    }

    #[test]
    fn the_document_follows_the_configuration() {
        let default = document(&Served {
            training: false,
            test_routes: false,
            panic_route: false,
        });
        let paths = default["paths"].as_object().expect("paths");
        assert!(paths.keys().all(|p| !p.starts_with("/debug/")), "{paths:?}");
        for gone in ["/api/modelTraining", "/api/training", "/api/allTraining"] {
            assert!(!paths.contains_key(gone), "{gone}");
        }
        assert!(paths.contains_key("/api/processHeaderFundingDocument"));
        assert!(paths.contains_key("/api/processFundingAcknowledgement"));
        let all = document(&Served::all());
        assert!(all["paths"]["/debug/sleep"]["get"]["tags"][0] == "test-only");
        assert!(all["paths"]["/api/killTraining"]["post"].is_object());
        // No empty `required` list anywhere (invalid in OpenAPI 3.0's schema dialect).
        assert!(!all.to_string().contains("\"required\":[]"));
    }

    #[test]
    fn grobid_parameters_are_listed() {
        let doc = document(&Served::all());
        let props = |path: &str| {
            doc["paths"][path]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
                ["properties"]
                .clone()
        };
        for (path, names) in [
            (
                "/api/processFulltextDocument",
                &[
                    "input",
                    "flavor",
                    "consolidateHeader",
                    "consolidateCitations",
                    "consolidateFunders",
                    "includeRawAffiliations",
                    "includeRawCopyrights",
                    "includeRawCitations",
                    "includeDiscardedText",
                    "start",
                    "end",
                    "generateIDs",
                    "segmentSentences",
                    "teiCoordinates",
                ][..],
            ),
            (
                "/api/processHeaderDocument",
                &[
                    "input",
                    "consolidateHeader",
                    "includeRawAffiliations",
                    "includeRawCopyrights",
                    "includeDiscardedText",
                    "start",
                    "end",
                ][..],
            ),
            (
                "/api/annotatePDF",
                &[
                    "input",
                    "consolidateHeader",
                    "consolidateCitations",
                    "includeRawAffiliations",
                    "includeRawCitations",
                    "type",
                ][..],
            ),
            (
                "/api/referenceAnnotations",
                &[
                    "input",
                    "consolidateHeader",
                    "consolidateCitations",
                    "includeRawCitations",
                    "includeFiguresTables",
                ][..],
            ),
        ] {
            let props = props(path);
            for name in names {
                assert!(props[*name].is_object(), "{path}: {name}");
            }
        }
    }
}
