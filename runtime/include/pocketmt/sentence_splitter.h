// Sentence splitting: where a text's sentences start and end, so that a paragraph can be
// translated sentence by sentence and put back together with its own whitespace.
//
//   std::vector<pmt::SentenceSpan> spans;
//   pmt::split_sentences("Mr. Smith left. ¿Y tú? Fine.", "en", &spans);
//   // -> "Mr. Smith left." | "¿Y tú?" | "Fine."
//
// Rules, in order:
// - A line break always ends a sentence ("\n", "\r\n"): text keeps its lines, as the
//   translate CLI does line by line.
// - Otherwise a sentence ends after end punctuation (. ! ? … and runs of them such as "?!" or
//   "..."), optionally followed by closing quotes or brackets (" ' ” ’ » ) ]), then whitespace,
//   then something that starts a sentence: an upper-case letter, a digit, ¿ or ¡, a letter of a
//   script without case, or opening quotes or brackets before one of these.
// - A single "." does not end a sentence after an abbreviation of the language ("Mr.", "Dr.",
//   "e.g.", "Sr.", "EE. UU."), after an abbreviation that precedes numbers when a digit follows
//   ("No. 5", "p. 12", "núm. 3"), after a single capital letter (an initial: "J. R. R."), after
//   a dotted acronym ("U.S.", "Ph.D."; "a.m." and "p.m." excepted, which often end a sentence),
//   and after a list number that starts the sentence ("1.", "IV.", "b.").
// Decimal numbers, URLs and "file.txt" never split: a boundary needs whitespace after it.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace pmt {

// One sentence: bytes [begin, end) of the text, without the whitespace around it.
struct SentenceSpan {
  size_t begin = 0;
  size_t end = 0;
};

// Writes the sentences of the UTF-8 `text` to *out (cleared first), in order; whitespace between
// them, and before the first and after the last, belongs to no sentence. `language` is the
// ISO 639-1 code whose abbreviations apply: "en" or "es"; any other code uses both lists.
// Never fails: bytes that are not valid UTF-8 count as letters of no case.
void split_sentences(std::string_view text, std::string_view language, std::vector<SentenceSpan>* out);

}  // namespace pmt
