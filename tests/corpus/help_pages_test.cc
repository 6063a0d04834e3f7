// GNOME / MATE help pages: block extraction from Mallard and DocBook, and the one-to-one
// alignment of an original page with its translation, on small hand-written pages.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "corpus/help_pages.h"
#include "corpus/software_text.h"

using namespace pmt::corpus;

namespace {

std::vector<HelpBlock> blocks_of(const std::string& xml) {
  std::vector<HelpBlock> blocks;
  std::string error;
  REQUIRE_MESSAGE(parse_help_page(xml, &blocks, &error), error);
  return blocks;
}

std::vector<std::string> elements(const std::vector<HelpBlock>& blocks) {
  std::vector<std::string> out;
  for (const HelpBlock& b : blocks) out.push_back(b.element);
  return out;
}

const char kMallardEn[] = R"(<?xml version="1.0" encoding="utf-8"?>
<page xmlns="http://projectmallard.org/1.0/" type="topic" id="files-copy">
  <info>
    <link type="guide" xref="files#common-file-tasks"/>
    <credit type="author"><name>Cristopher Thomas</name><email>x@example.org</email></credit>
    <desc>Copy or move items to a new folder.</desc>
  </info>
  <title>Copy or move files and folders</title>
  <p>A file or folder can be copied or moved by using the <gui>Edit</gui> menu.</p>
  <!-- a comment with <p>markup</p> -->
  <steps>
    <item><p>Press <keyseq><key>Ctrl</key><key>C</key></keyseq> to copy, or choose
      <guiseq><gui>Edit</gui><gui>Copy</gui></guiseq>.</p></item>
    <item><p>See <link xref="files-select"/> for more.</p></item>
  </steps>
  <code>cp a b</code>
  <note style="tip"><p>The <em>Tool</em>bars &amp; menus.</p></note>
  <table><tr><td><p>Cell</p></td></tr></table>
</page>
)";

const char kMallardEs[] = R"(<?xml version="1.0" encoding="utf-8"?>
<page xmlns="http://projectmallard.org/1.0/" xmlns:mal="http://projectmallard.org/1.0/" type="topic" id="files-copy">
  <info>
    <link type="guide" xref="files#common-file-tasks"/>
    <credit type="author"><name>Cristopher Thomas</name><email>x@example.org</email></credit>
    <mal:credit type="translator copyright"><mal:name>Daniel Mustieles</mal:name><mal:years>2011</mal:years></mal:credit>
    <desc>Copiar o mover elementos a una carpeta nueva.</desc>
  </info>
  <title>Copiar o mover archivos y carpetas</title>
  <p>Puede copiar o mover un archivo o carpeta usando el menú <gui>Editar</gui>.</p>
  <steps>
    <item><p>Pulse <keyseq><key>Ctrl</key><key>C</key></keyseq> para copiar, o elija
      <guiseq><gui>Editar</gui><gui>Copiar</gui></guiseq>.</p></item>
    <item><p>Consulte la <link xref="files-select"/> para obtener más.</p></item>
  </steps>
  <code>cp a b</code>
  <note style="tip"><p>Las <em>barras</em> de herramientas &amp; menús.</p></note>
  <table><tr><td><p>Celda</p></td></tr></table>
</page>
)";

}  // namespace

TEST_CASE("help: Mallard blocks in document order, inline markup as text, credits and code dropped") {
  const std::vector<HelpBlock> en = blocks_of(kMallardEn);
  CHECK(elements(en) == std::vector<std::string>{"desc", "title", "p", "p", "p", "p", "p"});
  CHECK(en[0].text == "Copy or move items to a new folder.");
  CHECK(en[2].text == "A file or folder can be copied or moved by using the Edit menu.");
  CHECK(en[3].text == "Press Ctrl+C to copy, or choose\n      Edit \u25b8 Copy.");
  CHECK(en[3].complete);
  CHECK(!en[4].complete);  // the link shows the title of another page
  CHECK(en[5].text == "The Toolbars &amp; menus.");  // entities left for strip_markup
  CHECK(en[6].text == "Cell");
}

TEST_CASE("help: a page and its translation align block by block; incomplete blocks are left out") {
  std::vector<SentencePair> pairs;
  int64_t incomplete = 0;
  REQUIRE(align_help_blocks(blocks_of(kMallardEn), blocks_of(kMallardEs), &pairs, &incomplete));
  CHECK(incomplete == 1);
  REQUIRE(pairs.size() == 6);
  CHECK(pairs[1].en == "Copy or move files and folders");
  CHECK(pairs[1].es == "Copiar o mover archivos y carpetas");
  CHECK(pairs[3].es == "Pulse Ctrl+C para copiar, o elija\n      Editar \u25b8 Copiar.");

  // The same cleaning as every other source: whitespace collapsed, entities decoded once.
  SentencePair clean;
  CleanCounts counts;
  REQUIRE(clean_pair(pairs[4], &clean, &counts));
  CHECK(clean.en == "The Toolbars & menus.");
  CHECK(clean.es == "Las barras de herramientas & menús.");
}

TEST_CASE("help: pages whose block sequences differ do not align") {
  const std::vector<HelpBlock> en = blocks_of("<page><title>Title here</title><p>One two three.</p></page>");
  std::vector<SentencePair> pairs;
  int64_t incomplete = 0;
  CHECK(!align_help_blocks(en, blocks_of("<page><title>Título</title></page>"), &pairs, &incomplete));
  CHECK(!align_help_blocks(en, blocks_of("<page><p>Uno.</p><title>Título</title></page>"), &pairs, &incomplete));
  CHECK(pairs.empty());
}

TEST_CASE("help: DocBook entities, menu choices, paras around lists and verbatim blocks") {
  const std::vector<HelpBlock> blocks = blocks_of(R"(<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//OASIS//DTD DocBook XML V4.1.2//EN" "docbookx.dtd" [
  <!ENTITY app "<application>Calculator</application>">
  <!ENTITY appversion "5.0">
  <!ENTITY chapter1 SYSTEM "chapter1.xml">
]>
<article>
  <articleinfo><title>&app; Manual</title>
    <othercredit><contrib>Translator</contrib></othercredit></articleinfo>
  <sect1><title>Usage</title>
    <para>Choose <menuchoice><guimenu>View</guimenu><guimenuitem>Advanced</guimenuitem></menuchoice>
      in &app; &appversion;<indexterm><primary>mode</primary></indexterm>:
      <itemizedlist><listitem><para>Press <keycombo><keycap>Ctrl</keycap><keycap>Q</keycap></keycombo>.</para></listitem></itemizedlist>
      then quit.</para>
    <programlisting>gnome-calculator &amp;</programlisting>
    <informaltable><tgroup cols="1"><tbody><row><entry>Plain cell</entry><entry><para>Para cell</para></entry></row></tbody></tgroup></informaltable>
    <para>See <xref linkend="intro"/>.<![CDATA[ a < b ]]></para>
  </sect1>
</article>
)");
  CHECK(elements(blocks) == std::vector<std::string>{"title", "title", "para", "para", "para", "entry", "para", "para"});
  CHECK(blocks[0].text == "Calculator Manual");
  CHECK(blocks[2].text == "Choose View \u25b8 Advanced\n      in Calculator 5.0:\n      ");
  CHECK(blocks[3].text == "Press Ctrl+Q.");
  CHECK(blocks[4].text == "\n      then quit.");
  CHECK(blocks[5].text == "Plain cell");
  CHECK(blocks[6].text == "Para cell");
  CHECK(blocks[7].text == "See . a &lt; b ");
  CHECK(!blocks[7].complete);
  CHECK(!blocks_of("<article><para>Visit <ulink url=\"http://x.org\"/> now.</para></article>")[0].complete);
  CHECK(blocks_of("<article><para>Visit <ulink url=\"http://x.org\">the site</ulink>.</para></article>")[0].complete);
}

TEST_CASE("help: XML this reader does not accept gives a message with the line") {
  std::vector<HelpBlock> blocks;
  std::string error;
  CHECK(!parse_help_page("<page>\n<p>text</title>\n</page>", &blocks, &error));
  CHECK(error == "line 2: </title> closes <p>");
  CHECK(!parse_help_page("<page><p>never closed</p>", &blocks, &error));
  CHECK(error == "line 1: <page> is never closed");
  CHECK(!parse_help_page("<page><!-- open </page>", &blocks, &error));
  CHECK(error == "line 1: unterminated comment, CDATA or declaration");
}
