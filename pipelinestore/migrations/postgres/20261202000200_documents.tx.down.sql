DROP TABLE document_contents;
--bun:split
DROP TABLE documents;
