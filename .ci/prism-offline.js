// Writes a copy of a JSON OpenAPI document that Stoplight Prism can serve
// offline: node prism-offline.js IN OUT.
//
// Prism dereferences every "$ref" member anywhere in a document, example
// values included (@stoplight/json-schema-ref-parser walks the whole tree).
// Some examples carry "$ref" as data: GitHub's SCIM group examples list
// members as {"value": …, "$ref": "https://api.github.com/scim/v2/…",
// "display": …}, the attribute RFC 7643 §4.2 defines. Prism then tries to
// download those URLs at start-up and exits without network.
//
// The copy drops exactly those members: a "$ref" whose value is not a local
// "#/…" pointer, inside an example value ("example", or "examples.NAME.value").
// Nothing else changes (key order is kept; only the formatting differs). Each
// dropped member is printed. A non-local "$ref" outside example values is a
// real remote reference: the script refuses it, as kitgen openapi does
// without its flag.
"use strict";
const fs = require("fs");

const [src, dst] = process.argv.slice(2);
if (!src || !dst) {
  console.error("usage: node prism-offline.js IN.json OUT.json");
  process.exit(2);
}
const doc = JSON.parse(fs.readFileSync(src, "utf8"));
const dropped = [];
const remote = [];

const isRemote = (v) => typeof v === "string" && !v.startsWith("#");
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// inExample drops the remote "$ref" members of an example value.
function inExample(v, path) {
  if (Array.isArray(v)) {
    v.forEach((x, i) => inExample(x, `${path}/${i}`));
  } else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (k === "$ref" && isRemote(v[k])) {
        dropped.push(`${path}/$ref: ${v[k]}`);
        delete v[k];
      } else {
        inExample(v[k], `${path}/${pointerEscape(k)}`);
      }
    }
  }
}

// walk finds the example values of the document.
function walk(v, path) {
  if (Array.isArray(v)) {
    v.forEach((x, i) => walk(x, `${path}/${i}`));
    return;
  }
  if (!isObject(v)) return;
  for (const k of Object.keys(v)) {
    const p = `${path}/${pointerEscape(k)}`;
    if (k === "$ref" && isRemote(v[k])) {
      remote.push(`${p}: ${v[k]}`);
    } else if (k === "example") {
      inExample(v[k], p);
    } else if (k === "examples" && isObject(v[k])) {
      for (const name of Object.keys(v[k])) {
        const e = v[k][name];
        if (isObject(e) && "value" in e) {
          inExample(e.value, `${p}/${pointerEscape(name)}/value`);
        } else {
          walk(e, `${p}/${pointerEscape(name)}`);
        }
      }
    } else {
      walk(v[k], p);
    }
  }
}

function pointerEscape(k) {
  return k.replace(/~/g, "~0").replace(/\//g, "~1");
}

walk(doc, "#");
if (remote.length > 0) {
  console.error(`${src}: remote references outside example values, which Prism would download:`);
  for (const r of remote) console.error(`  ${r}`);
  process.exit(1);
}
fs.writeFileSync(dst, JSON.stringify(doc));
console.log(`${src}: dropped ${dropped.length} "$ref" members of example values that Prism would download:`);
for (const d of dropped) console.log(`  ${d}`);
