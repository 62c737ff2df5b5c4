-- The tables keep AUTOINCREMENT: ids that are never reused break nothing
-- an earlier schema relies on.
SELECT 1;
