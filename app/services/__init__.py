"""Services: plain functions over a SQLAlchemy Session. All SQL lives here."""
