/* model_file.c - reading, checking and writing tunesim model files with libxml2 (see
 * model_file.h). The schema is compiled in (model_xsd.inc is generated from params/model.xsd
 * by models/CMakeLists.txt), so an installed tunesim needs no source tree to validate. */
#include "model_file.h"

#include "../common/jsontext.h"
#include "../common/infile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>

#include "../common/grow.h"
#include "../common/outfile.h"

static const char SCHEMA[] = {
#include "model_xsd.inc"
};

const char *ts_model_schema(void)
{
    return SCHEMA;
}

typedef struct entry_s {
    char *name, *value, *stderr_text, *source;
    int line;
} entry_t;

struct ts_model_s {
    char *platform, *created_from;
    char **notes;
    size_t nnotes;
    entry_t *params;
    ts_model_param_t *views; /* what ts_model_param hands out, rebuilt on each add */
    size_t nparams;
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

ts_model_t *ts_model_new(const char *platform, const char *created_from)
{
    ts_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->platform = strdup(platform ? platform : "");
    m->created_from = strdup(created_from ? created_from : "");
    if (!m->platform || !m->created_from) {
        ts_model_free(m);
        return NULL;
    }
    return m;
}

void ts_model_free(ts_model_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nnotes; i++)
        free(m->notes[i]);
    for (size_t i = 0; i < m->nparams; i++) {
        free(m->params[i].name);
        free(m->params[i].value);
        free(m->params[i].stderr_text);
        free(m->params[i].source);
    }
    free(m->notes);
    free(m->params);
    free(m->views);
    free(m->platform);
    free(m->created_from);
    free(m);
}

ts_status ts_model_add_note(ts_model_t *m, const char *text, ts_error_t *err)
{
    return ts_strs_push(&m->notes, &m->nnotes, text) == 0
               ? TS_OK
               : ts_error_set(err, TS_ENOMEM, "out of memory");
}

/* A model file holds model constants only: UCX_* and MCA settings describe a run, not a
 * platform, and belong on the command line. Two exceptions: UCX_BCOPY_BW, the copy rate at
 * which the protocol model charges copies (models/protocol.c), which a calibration measures;
 * UCX_PROTO_ENABLE, whose default is the platform's UCX version's (n before UCX 1.16).
 * The value must parse for the parameter. */
static ts_status check_param(const char *name, const char *value, ts_error_t *err)
{
    int id = ts_param_find(name);
    if (id < 0 || (strncmp(name, "model.", 6) != 0 && strcmp(name, "UCX_BCOPY_BW") != 0 &&
                   strcmp(name, "UCX_PROTO_ENABLE") != 0))
        return ts_error_set(err, TS_EARG,
                            "expected a model.* parameter of the table (tunesim params), "
                            "UCX_BCOPY_BW or UCX_PROTO_ENABLE, got '%s'",
                            name);
    ts_params_t *scratch;
    if (ts_params_new(&scratch) != TS_OK)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    ts_status st = ts_params_set_user(scratch, name, value, err);
    ts_params_free(scratch);
    return st;
}

static ts_status add_entry(ts_model_t *m, const char *name, const char *value,
                           const char *stderr_text, const char *source, int line, ts_error_t *err)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return ts_error_set(err, TS_EARG, "parameter %s given twice", name);
    entry_t *e = realloc(m->params, (m->nparams + 1) * sizeof *e);
    if (!e)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    m->params = e;
    ts_model_param_t *v = realloc(m->views, (m->nparams + 1) * sizeof *v);
    if (!v)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    m->views = v;
    entry_t *n = &m->params[m->nparams];
    n->name = strdup(name);
    n->value = strdup(value);
    n->stderr_text = dup_or_null(stderr_text);
    n->source = strdup(source ? source : "");
    n->line = line;
    if (!n->name || !n->value || !n->source || (stderr_text && !n->stderr_text)) {
        free(n->name);
        free(n->value);
        free(n->stderr_text);
        free(n->source);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    m->nparams++;
    for (size_t i = 0; i < m->nparams; i++)
        m->views[i] =
            (ts_model_param_t){m->params[i].name, m->params[i].value, m->params[i].stderr_text,
                               m->params[i].source, m->params[i].line};
    return TS_OK;
}

ts_status ts_model_add_param(ts_model_t *m, const char *name, const char *value,
                             const char *stderr_text, const char *source, ts_error_t *err)
{
    ts_status st = check_param(name, value, err);
    return st != TS_OK ? st : add_entry(m, name, value, stderr_text, source, 0, err);
}

size_t ts_model_nparams(const ts_model_t *m)
{
    return m->nparams;
}
const ts_model_param_t *ts_model_param(const ts_model_t *m, size_t i)
{
    return i < m->nparams ? &m->views[i] : NULL;
}
const char *ts_model_platform(const ts_model_t *m)
{
    return m->platform;
}
const char *ts_model_created_from(const ts_model_t *m)
{
    return m->created_from;
}

/* ---- writing -------------------------------------------------------------------------- */

/* A copy of s that XML 1.0 can hold: a control character other than tab and line ends, a
 * byte that starts no UTF-8 sequence (a Latin-1 file name) or U+FFFE / U+FFFF becomes '?'. libxml2
 * writes such bytes as they are, and the file would not load. NULL when out of memory. */
static xmlChar *xml_text(const char *s)
{
    size_t n = strlen(s);
    unsigned char *t = malloc(n + 1);
    for (size_t i = 0; t && i < n;) {
        const unsigned char *c = (const unsigned char *)s + i;
        size_t k = *c < 0x80 ? 1 : ts_utf8_seq_len(c);
        int nonchar = k == 3 && c[0] == 0xEF && c[1] == 0xBF && c[2] >= 0xBE; /* U+FFFE, U+FFFF */
        if (k == 0 || nonchar || (*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r')) {
            t[i++] = '?';
            continue;
        }
        memcpy(t + i, c, k);
        i += k;
    }
    if (t)
        t[n] = '\0';
    return t;
}

/* xmlNewProp with its value made XML text. */
static int set_prop(xmlNodePtr n, const char *name, const char *value)
{
    xmlChar *v = xml_text(value);
    int ok = v && xmlNewProp(n, BAD_CAST name, v);
    free(v);
    return ok;
}

ts_status ts_model_write(const ts_model_t *m, const char *path, ts_error_t *err)
{
    xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
    xmlNodePtr root = doc ? xmlNewNode(NULL, BAD_CAST "tunesim-model") : NULL;
    if (!root) {
        xmlFreeDoc(doc);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    xmlDocSetRootElement(doc, root);
    int ok = set_prop(root, "platform", m->platform) &&
             set_prop(root, "created-from", m->created_from) && set_prop(root, "version", "1");
    for (size_t i = 0; ok && i < m->nnotes; i++) {
        xmlChar *t = xml_text(m->notes[i]);
        ok = t && xmlNewTextChild(root, NULL, BAD_CAST "note", t) != NULL;
        free(t);
    }
    for (size_t i = 0; ok && i < m->nparams; i++) {
        const entry_t *e = &m->params[i];
        xmlNodePtr n = xmlNewChild(root, NULL, BAD_CAST "param", NULL);
        ok = n && set_prop(n, "name", e->name) && set_prop(n, "value", e->value) &&
             (!e->stderr_text || set_prop(n, "stderr", e->stderr_text)) &&
             set_prop(n, "source", e->source);
    }
    xmlChar *buf = NULL;
    int len = 0;
    if (ok)
        xmlDocDumpFormatMemoryEnc(doc, &buf, &len, "UTF-8", 1);
    xmlFreeDoc(doc);
    if (!buf) {
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    ts_outfile_t *f;
    ts_status st = ts_outfile_open(path, &f, err);
    if (st == TS_OK) {
        fwrite(buf, 1, (size_t)len, ts_outfile_stream(f));
        st = ts_outfile_commit(f, err);
    }
    xmlFree(buf);
    return st;
}

/* ---- reading -------------------------------------------------------------------------- */

/* The first libxml2 error of a parse or validation, as "LINE: message". */
typedef struct xerr_s {
    int have, line;
    char msg[300];
} xerr_t;

static void keep_first(void *ctx, xmlErrorPtr e)
{
    xerr_t *x = ctx;
    if (x->have || !e)
        return;
    x->have = 1;
    x->line = e->line;
    snprintf(x->msg, sizeof x->msg, "%s", e->message ? e->message : "invalid XML");
    size_t n = strlen(x->msg);
    while (n && (x->msg[n - 1] == '\n' || x->msg[n - 1] == ' '))
        x->msg[--n] = '\0';
}

static ts_status validate(const char *path, xmlDocPtr doc, ts_error_t *err)
{
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewMemParserCtxt(SCHEMA, (int)strlen(SCHEMA));
    xmlSchemaPtr schema = pc ? xmlSchemaParse(pc) : NULL;
    xmlSchemaValidCtxtPtr vc = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
    ts_status st = TS_OK;
    if (!vc) {
        st = ts_error_set(err, TS_ENOMEM, "%s: cannot load the model schema", path);
    } else {
        xerr_t x = {0};
        xmlSchemaSetValidStructuredErrors(vc, keep_first, &x);
        int rc = xmlSchemaValidateDoc(vc, doc);
        if (rc != 0)
            st = ts_error_set(err, TS_ECORRUPT,
                              "%s:%d: not a tunesim model file (params/model.xsd): %s", path,
                              x.have ? x.line : 0, x.have ? x.msg : "invalid");
    }
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pc);
    return st;
}

static char *prop(xmlNodePtr n, const char *name)
{
    return (char *)xmlGetProp(n, BAD_CAST name);
}

/* The most attributes one element of a model file may carry; the schema's elements have at
 * most a handful. libxml2 (2.9) checks an element's attributes for duplicates pairwise before
 * anything else sees them, so a crafted element of 100,000 attributes (1 MB) would take a
 * minute to be refused. */
enum { MODEL_MAX_ATTRS = 64 };

/* TS_OK when no element of text has more than MODEL_MAX_ATTRS attributes ('=' signs inside a
 * tag, outside quotes; comments and CDATA skipped), else TS_ECORRUPT at that element's line. */
static ts_status check_attr_counts(const char *path, const char *text, size_t len, ts_error_t *err)
{
    int line = 1, tag_line = 0, n = 0;
    char quote = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\n')
            line++;
        if (!tag_line) {
            if (c != '<')
                continue;
            const char *end = NULL;
            if (strncmp(text + i, "<!--", 4) == 0)
                end = "-->";
            else if (strncmp(text + i, "<![CDATA[", 9) == 0)
                end = "]]>";
            if (end) {
                const char *e = strstr(text + i, end);
                size_t stop = e ? (size_t)(e - text) : len;
                for (; i < stop; i++)
                    line += text[i] == '\n';
                continue;
            }
            tag_line = line, n = 0, quote = 0;
        } else if (quote) {
            if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '=' && ++n > MODEL_MAX_ATTRS) {
            return ts_error_set(err, TS_ECORRUPT,
                                "%s:%d: an element with more than %d attributes (expected a "
                                "tunesim model file, whose elements have a few)",
                                path, tag_line, MODEL_MAX_ATTRS);
        } else if (c == '>') {
            tag_line = 0;
        }
    }
    return TS_OK;
}

ts_status ts_model_read(const char *path, ts_model_t **out, ts_error_t *err)
{
    *out = NULL;
    /* Checked here: libxml2 would print its own warning for a missing file. */
    int probe = ts_open_input(path);
    if (probe < 0 && errno != EISDIR)
        return ts_error_set(err, TS_ENOENT, "%s: cannot read the model file: %s", path,
                            strerror(errno));
    /* A directory, a FIFO or a device: libxml2 reads the file by name again, and would block
     * on a FIFO nobody writes or print its own I/O error before ours. */
    struct stat sb;
    int regular = probe >= 0 && fstat(probe, &sb) == 0 && S_ISREG(sb.st_mode);
    if (probe >= 0)
        close(probe);
    if (!regular)
        return ts_error_set(err, TS_EARG, "%s: not a regular file (expected a model file)", path);
    size_t len = 0;
    ts_status rs;
    char *text = ts_read_whole(path, &len, &rs, err);
    if (!text)
        return rs;
    rs = check_attr_counts(path, text, len, err);
    free(text);
    if (rs != TS_OK)
        return rs;
    xmlParserCtxtPtr pctx = xmlNewParserCtxt();
    if (!pctx)
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    xmlDocPtr doc = xmlCtxtReadFile(pctx, path, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        xmlErrorPtr e = xmlCtxtGetLastError(pctx);
        ts_status st;
        if (e && e->domain == XML_FROM_IO)
            st = ts_error_set(err, TS_ENOENT, "%s: cannot read the model file", path);
        else {
            xerr_t x = {0};
            keep_first(&x, e);
            st = ts_error_set(err, TS_ECORRUPT, "%s:%d: expected well-formed XML: %s", path, x.line,
                              x.have ? x.msg : "unreadable");
        }
        xmlFreeParserCtxt(pctx);
        return st;
    }
    xmlFreeParserCtxt(pctx);
    ts_status st = validate(path, doc, err);
    ts_model_t *m = NULL;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (st == TS_OK) {
        /* A later format may mean other things by the same names: refuse it, do not guess. */
        char *ver = prop(root, "version");
        if (ver && strcmp(ver, "1") != 0)
            st = ts_error_set(err, TS_EVERSION,
                              "%s:%d: model file version %s is not "
                              "supported (expected 1)",
                              path, (int)xmlGetLineNo(root), ver);
        xmlFree(ver);
    }
    if (st == TS_OK) {
        char *pf = prop(root, "platform"), *cf = prop(root, "created-from");
        m = ts_model_new(pf, cf);
        xmlFree(pf);
        xmlFree(cf);
        if (!m)
            st = ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    for (xmlNodePtr n = root ? root->children : NULL; st == TS_OK && n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        int line = (int)xmlGetLineNo(n);
        if (xmlStrcmp(n->name, BAD_CAST "note") == 0) {
            xmlChar *t = xmlNodeGetContent(n);
            st = ts_model_add_note(m, t ? (const char *)t : "", err);
            xmlFree(t);
            continue;
        }
        char *name = prop(n, "name"), *value = prop(n, "value"), *sd = prop(n, "stderr"),
             *src = prop(n, "source");
        ts_error_t e2;
        ts_error_clear(&e2);
        st = check_param(name, value, &e2);
        if (st == TS_OK)
            st = add_entry(m, name, value, sd, src, line, &e2);
        if (st != TS_OK)
            ts_error_set(err, st, "%s:%d: %s", path, line, e2.msg);
        xmlFree(name);
        xmlFree(value);
        xmlFree(sd);
        xmlFree(src);
    }
    xmlFreeDoc(doc);
    if (st != TS_OK) {
        ts_model_free(m);
        return st;
    }
    *out = m;
    return TS_OK;
}

ts_status ts_model_apply_file(const char *path, ts_params_t *p, ts_error_t *err)
{
    ts_model_t *m;
    ts_status st = ts_model_read(path, &m, err);
    if (st != TS_OK)
        return st;
    /* Every value was checked while reading; set them on a copy so that p changes only as
     * a whole. */
    ts_params_t *work;
    if (ts_params_copy(p, &work) != TS_OK) {
        ts_model_free(m);
        return ts_error_set(err, TS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < m->nparams && st == TS_OK; i++) {
        ts_error_t e2;
        ts_error_clear(&e2);
        st = ts_params_set(work, m->params[i].name, m->params[i].value, &e2);
        if (st != TS_OK)
            ts_error_set(err, st, "%s:%d: %s", path, m->params[i].line, e2.msg);
    }
    if (st == TS_OK)
        for (size_t i = 0; i < m->nparams && st == TS_OK; i++)
            st = ts_params_set(p, m->params[i].name, m->params[i].value, err);
    /* calibrate wrote "unspecified" when given no --platform, which no replay could match:
     * like "", it stands for no platform, and such a model applies to any. */
    if (st == TS_OK)
        ts_params_note_model(p, path, strcmp(m->platform, "unspecified") == 0 ? "" : m->platform);
    ts_params_free(work);
    ts_model_free(m);
    return st;
}
