-- Folded copies stay folded: the earlier folding found nothing the
-- simple case folding does not.
SELECT 1;
